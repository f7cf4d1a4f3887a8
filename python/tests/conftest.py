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
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for dtype, shape in module.parameters]


@pytest.fixture(params=MODULE_FILES, ids=lambda path: path.name)
def module_file(request) -> pathlib.Path:
    return request.param
