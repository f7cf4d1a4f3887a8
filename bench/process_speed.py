#!/usr/bin/env python3
"""Whole-process speed of the xlite command line against the in-process
benchmark, measured in the same run.

Times `xlite verify|fmt|cost|opt FILE` from process start to exit (wall clock
and the child's CPU time) and runs build/bench/parse_bench's BM_ParseAndVerify
on the same file, then prints medians in MB/s of HLO text and each command's
ratio to the in-process figure. The machine may be shared: the CPU-time
column is the one that noise from other processes disturbs least.

Usage: bench/process_speed.py [--build build] [--runs 15] [--baseline XLITE] [FILE]
(--baseline times another xlite binary too, e.g. an older build, interleaved
with this one.)
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

DEFAULT_FILE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "corpus", "hlo",
    "xla__tools__benchmarks__hlo__hlo_mixtral_8x7b_bf16_2x8.hlo")
COMMANDS = {
    "verify": ["verify"],
    "fmt": ["fmt"],
    "cost": ["cost"],
    "opt": ["opt", "--passes=dce"],
}


def time_process(argv):
    """(wall seconds, CPU seconds) of one run of argv, output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({result.returncode}): {result.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def in_process_mb_per_s(parse_bench, path):
    """BM_ParseAndVerify's median MB/s on `path`."""
    env = dict(os.environ, XLITE_BENCH_HLO=path)
    out = subprocess.run(
        [parse_bench, "--benchmark_filter=BM_ParseAndVerify$", "--benchmark_repetitions=5",
         "--benchmark_format=json", "--benchmark_min_time=0.3"],
        env=env, check=True, capture_output=True, text=True).stdout
    runs = [b for b in json.loads(out)["benchmarks"]
            if b.get("run_type") == "iteration"]
    return statistics.median(b["bytes_per_second"] for b in runs) / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=DEFAULT_FILE)
    parser.add_argument("--build", default="build")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", help="another xlite binary to time alongside")
    args = parser.parse_args()
    path = os.path.abspath(args.file)
    if not os.path.exists(path):
        sys.exit(f"no module at {path}")
    megabytes = os.path.getsize(path) / 1e6
    xlite = os.path.join(args.build, "xlite", "tools", "xlite")
    parse_bench = os.path.join(args.build, "bench", "parse_bench")
    in_process = in_process_mb_per_s(parse_bench, path)
    print(f"{os.path.basename(path)}: {megabytes:.2f} MB; in-process parse+verify "
          f"(parse_bench BM_ParseAndVerify): {in_process:.0f} MB/s")
    print(f"{'command':17} {'wall ms':>8} {'MB/s':>6} {'ratio':>6}   {'cpu ms':>7} {'MB/s':>6} "
          f"{'ratio':>6}")
    binaries = [("", xlite)] + ([("baseline ", args.baseline)] if args.baseline else [])
    for name, argv in COMMANDS.items():
        samples = {label: [] for label, _ in binaries}
        for _ in range(args.runs):  # interleaved, so drift hits both alike
            for label, binary in binaries:
                samples[label].append(time_process([binary] + argv + [path]))
        for label, _ in binaries:
            wall = statistics.median(s[0] for s in samples[label])
            cpu = statistics.median(s[1] for s in samples[label])
            print(f"{label + name:17} {wall * 1e3:8.1f} {megabytes / wall:6.0f} "
                  f"{megabytes / wall / in_process:6.2f}   {cpu * 1e3:7.1f} "
                  f"{megabytes / cpu if cpu else float('inf'):6.0f} "
                  f"{(megabytes / cpu if cpu else 0) / in_process:6.2f}")
    print(f"medians of {args.runs} runs; ratio = whole-process MB/s / in-process MB/s")


if __name__ == "__main__":
    main()
