"""Running modules: backends agree, executables run many times, wrong
arguments are errors, narrow floats come back as ml_dtypes arrays."""

import numpy as np
import pytest

import xlite
from conftest import assert_close, random_arguments, run_everywhere

ADD = """HloModule add
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT s = f32[4] add(x, y)
}
"""


def test_backends_agree(module_file):
    module = xlite.Module.from_file(str(module_file))
    arguments = random_arguments(module)
    runs = run_everywhere(module, arguments)
    reference = runs["interpreter"]
    for results in runs.values():
        assert len(results) == len(reference)
        for got, want in zip(results, reference):
            assert_close(got, want)


def test_executable_runs_many_times():
    executable = xlite.compile(xlite.Module.from_text(ADD))
    for i in range(3):
        x = np.full(4, i, np.float32)
        (result,) = executable(x, np.ones(4, np.float32))
        np.testing.assert_array_equal(result, x + 1)
    assert executable.backend in xlite.available_backends()


def test_results_outlive_the_executable():
    (result,) = xlite.Module.from_text(ADD).run(np.ones(4, np.float32), np.ones(4, np.float32))
    assert result.dtype == np.float32 and result.tolist() == [2, 2, 2, 2]


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((np.ones(4, np.float32),), "takes 2 arguments, 1 given"),
        ((np.ones(3, np.float32), np.ones(4, np.float32)), "argument 0"),
        ((np.ones(4, np.int32), np.ones(4, np.float32)), "argument 0"),
        ((np.array(["a"] * 4), np.ones(4, np.float32)), "not supported yet: dtype"),
    ],
)
def test_wrong_arguments_are_errors(arguments, message):
    with pytest.raises(xlite.XliteError, match=message):
        xlite.Module.from_text(ADD).run(*arguments)


def test_unknown_backend_is_an_error():
    with pytest.raises(xlite.XliteError, match="unknown backend 'gpu'"):
        xlite.Module.from_text(ADD).run(np.ones(4), np.ones(4), backend="gpu")


def test_bf16_arrays():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")
    module = xlite.Module.from_text(ADD.replace("f32", "bf16"))
    x = np.array([1, 2, 3, 4], ml_dtypes.bfloat16)
    (result,) = module.run(x, x)
    assert result.dtype == ml_dtypes.bfloat16
    assert result.astype(np.float32).tolist() == [2, 4, 6, 8]


def test_spmd_runs_the_partitions():
    module = xlite.Module.from_text("""HloModule sharded, num_partitions=2
ENTRY main {
  x = f32[8] parameter(0), sharding={devices=[2]0,1}
  ROOT y = f32[8] multiply(x, x), sharding={devices=[2]0,1}
}
""")
    x = np.arange(8, dtype=np.float32)
    (result,) = module.run(x, spmd=True)
    np.testing.assert_array_equal(result, x * x)
    with pytest.raises(xlite.XliteError, match="not supported yet"):
        module.run(x)
