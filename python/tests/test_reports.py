"""cost, memory, schedule and optimize return what the CLI's --json does."""

import pytest

import xlite
from conftest import assert_close, random_arguments, run_everywhere


def test_cost(module_file):
    report = xlite.Module.from_file(str(module_file)).cost(device="h100")
    assert report["device"] == "h100"
    assert report["flops"] >= 0 and report["seconds"] > 0
    assert len(report["instructions"]) <= 20


def test_memory(module_file):
    module = xlite.Module.from_file(str(module_file))
    report = module.memory()
    assert report["peak_bytes"] > 0 and "top_buffers" in report
    if "cpu" in xlite.available_backends() and module.device_count == 1:
        assert module.memory(backend="cpu", device="h100")["backend"] == "cpu"
    with pytest.raises(xlite.XliteError, match="plans no arena|not supported yet"):
        module.memory(backend="interpreter")


def test_schedule(module_file):
    report = xlite.Module.from_file(str(module_file)).schedule(device="h100")
    assert report["step_seconds"] > 0 and "collectives" in report


def test_group_by(module_file):
    module = xlite.Module.from_file(str(module_file))
    cost = module.cost(group_by="op_name", top=0)
    assert cost["group_by"] == "op_name"
    assert sum(g["instructions"] for g in cost["groups"]) == len(cost["instructions"])
    assert abs(sum(g["flops"] for g in cost["groups"]) - cost["flops"]) <= 1e-6 * max(1, cost["flops"])
    memory = module.memory(group_by="source", top=1)
    assert len(memory["top_buffers"]) <= 1
    assert sum(g["buffers"] for g in memory["groups"]) >= len(memory["top_buffers"])
    assert module.schedule(group_by="source")["group_by"] == "source"
    with pytest.raises(xlite.XliteError, match="group_by must be op_name or source"):
        module.cost(group_by="line")


def test_optimize_keeps_the_results(module_file):
    module = xlite.Module.from_file(str(module_file))
    optimized = module.optimize("default")
    optimized.verify()
    arguments = random_arguments(module)
    for got, want in zip(run_everywhere(optimized, arguments)["interpreter"],
                         run_everywhere(module, arguments)["interpreter"]):
        assert_close(got, want)


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
