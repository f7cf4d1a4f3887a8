"""Per-call overhead of xlite from Python against the same call from C++.

The program is small_program_bench's: 20 elementwise ops on f32[16], so the
time is the fixed cost of a call. Python's figure is an Executable called in
a loop (argument conversion, the binding, the run, the result arrays); C++'s
is `xlite bench --json` on the same module (the executable alone).
Measures only. Usage (from the repository root, after `make python-venv` and
a build):

    PYTHONPATH=build/python build/py-venv/bin/python bench/python_overhead.py \
        --xlite build/xlite/tools/xlite
"""

import argparse
import json
import subprocess
import tempfile
import timeit

import numpy as np

import xlite

CHAIN = [("add", True), ("multiply", True), ("subtract", True), ("maximum", True),
         ("tanh", False), ("multiply", True), ("add", True), ("negate", False),
         ("minimum", True), ("abs", False), ("add", True), ("exponential", False),
         ("multiply", True), ("subtract", True), ("logistic", False), ("add", True),
         ("divide", True), ("maximum", True), ("sqrt", False), ("add", True)]


def program_text() -> str:
    lines = ["HloModule small_program", "ENTRY main {", "  x = f32[16] parameter(0)",
             "  y = f32[16] parameter(1)"]
    previous = "x"
    for i, (opcode, binary) in enumerate(CHAIN, start=1):
        operands = f"{previous}, {'x' if i % 2 == 0 else 'y'}" if binary else previous
        root = "ROOT " if i == len(CHAIN) else ""
        lines.append(f"  {root}v{i} = f32[16] {opcode}({operands})")
        previous = f"v{i}"
    return "\n".join(lines + ["}", ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xlite", help="the xlite binary, for the C++ figure")
    parser.add_argument("--repeat", type=int, default=20000)
    options = parser.parse_args()
    text = program_text()
    x, y = (np.random.default_rng(s).random(16, dtype=np.float32) for s in (0, 1))
    for backend in xlite.available_backends():
        executable = xlite.compile(xlite.Module.from_text(text), backend=backend, threads=1)
        executable(x, y)
        seconds = min(timeit.repeat(lambda: executable(x, y), number=options.repeat, repeat=3))
        line = f"{backend:12s} python {seconds / options.repeat * 1e6:8.2f} us/call"
        if options.xlite:
            with tempfile.NamedTemporaryFile("w", suffix=".hlo") as file:
                file.write(text)
                file.flush()
                out = subprocess.run([options.xlite, "bench", file.name, "--backend", backend,
                                      "--threads", "1", "--repeat", str(options.repeat),
                                      "--random", "0", "--json"],
                                     check=True, capture_output=True, text=True).stdout
            report = json.loads(out)
            report = report[0] if isinstance(report, list) else report
            line += f"   c++ {report['median_ms'] * 1e3:8.2f} us/call"
        print(line)


if __name__ == "__main__":
    main()
