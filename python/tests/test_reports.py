"""cost, memory, schedule and optimize return what the CLI's --json does."""

import numpy as np
import pytest

import xlite
from conftest import random_arguments


def test_cost(module_file):
    report = xlite.Module.from_file(str(module_file)).cost(device="h100")
    assert report["device"] == "h100"
    assert report["flops"] >= 0 and report["seconds"] > 0
    assert len(report["instructions"]) <= 20


def test_memory(module_file):
    module = xlite.Module.from_file(str(module_file))
    report = module.memory()
    assert report["peak_bytes"] > 0 and "top_buffers" in report
    assert module.memory(backend="interpreter", device="h100")["backend"] == "interpreter"


def test_schedule(module_file):
    report = xlite.Module.from_file(str(module_file)).schedule(device="h100")
    assert report["step_seconds"] > 0 and "collectives" in report


def test_optimize_keeps_the_results(module_file):
    module = xlite.Module.from_file(str(module_file))
    optimized = module.optimize("default")
    optimized.verify()
    arguments = random_arguments(module)
    for got, want in zip(optimized.run(*arguments, backend="interpreter"),
                         module.run(*arguments, backend="interpreter")):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: m.cost(device="nope"), "unknown device"),
        (lambda m: m.memory(scheduler="nope"), "scheduler must be"),
        (lambda m: m.optimize("nope"), "unknown pipeline"),
        (lambda m: m.cost(top=-1), "top must be"),
    ],
)
def test_report_errors(module_file, call, message):
    with pytest.raises(xlite.XliteError, match=message):
        call(xlite.Module.from_file(str(module_file)))
