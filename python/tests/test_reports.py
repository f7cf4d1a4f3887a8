"""cost, memory, schedule, shard and optimize return what the CLI's --json does."""

import json
import os
import subprocess

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


SHARDED_DOT = """HloModule sharded_dot, num_partitions=4, allow_spmd_sharding_propagation_to_output={true}

ENTRY main {
  x = f32[16,32] parameter(0), sharding={devices=[4,1]<=[4]}
  w = f32[32,8] parameter(1), sharding={replicated}
  ROOT d = f32[16,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""


def test_shard_propagates():
    report = xlite.Module.from_text(SHARDED_DOT).shard()
    shardings = {i["name"]: i["sharding"] for i in report["instructions"]}
    assert shardings["d"] == "{devices=[4,1]<=[4]}"
    assert "leaves" not in report["instructions"][0] and "partition" not in report
    explained = xlite.Module.from_text(SHARDED_DOT).shard(explain=True, names=["%d"])
    (dot,) = explained["instructions"]
    assert dot["leaves"][0]["kind"] == "forward" and dot["leaves"][0]["from"] == "x"


def test_shard_partition_reports_collectives():
    module = xlite.Module.from_text(SHARDED_DOT.replace("{devices=[4,1]<=[4]}\n", "{devices=[1,4]<=[4]}\n", 1))
    partition = module.shard(partition=True, device="h100")["partition"]
    assert partition["partitions"] == 4
    (reduce,) = [c for c in partition["collectives"] if c["kind"] == "all-reduce"]
    assert reduce["seconds"] > 0 and reduce["bytes_per_device"] > 0


def test_shard_is_the_cli_json(tmp_path):
    cli = os.environ.get("XLITE_CLI")
    if not cli:
        pytest.skip("XLITE_CLI is not set (the command line is not built)")
    path = tmp_path / "dot.hlo"
    path.write_text(SHARDED_DOT)
    printed = subprocess.run([cli, "shard", str(path), "--partition", "--device", "h100", "--json"],
                             check=True, capture_output=True, text=True).stdout
    returned = xlite.Module.from_file(str(path)).shard(explain=True, partition=True, device="h100")
    assert returned == json.loads(printed)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: m.shard(device="h100"), "device needs partition=True"),
        (lambda m: m.shard(names=["%nope"]), "no instruction %nope"),
        (lambda m: m.shard(partition=True, device="nope"), "unknown device"),
    ],
)
def test_shard_errors(call, message):
    with pytest.raises(xlite.XliteError, match=message):
        call(xlite.Module.from_text(SHARDED_DOT))
