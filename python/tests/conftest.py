"""Shared fixtures: where the examples and the shared benchmark modules are,
and random arguments for a module's parameters."""

import os
import pathlib

import numpy as np
import pytest

import xlite

SOURCE_DIR = pathlib.Path(os.environ.get("XLITE_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
BENCH_DIR = SOURCE_DIR.parent / "shared" / "bench"
EXAMPLE_FILES = sorted((SOURCE_DIR / "examples").glob("*.hlo"))
BENCH_FILES = sorted(BENCH_DIR.glob("*.hlo")) if BENCH_DIR.is_dir() else []
MODULE_FILES = EXAMPLE_FILES + BENCH_FILES


def random_arguments(module: xlite.Module, seed: int = 0) -> list:
    """Normal values scaled by 1/sqrt(last dimension), as weights are initialised:
    unscaled, a transformer's attention logits reach the hundreds, softmax turns
    into an argmax and a rounding difference picks another key."""
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape) / np.sqrt(shape[-1] if shape else 1)).astype(dtype)
            for dtype, shape in module.parameters]


def assert_close(got: np.ndarray, want: np.ndarray) -> None:
    """Equal up to float reassociation, relative to the result's scale."""
    scale = float(np.max(np.abs(want))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4 * max(1.0, scale))


def run_everywhere(module: xlite.Module, arguments: list) -> dict:
    """The results on every backend (the partitioned program on the
    interpreter for a multi-device module)."""
    if module.device_count > 1:
        return {"interpreter": module.run(*arguments, spmd=True)}
    return {b: module.run(*arguments, backend=b) for b in xlite.available_backends()}


@pytest.fixture(params=MODULE_FILES, ids=lambda path: path.name)
def module_file(request) -> pathlib.Path:
    return request.param
