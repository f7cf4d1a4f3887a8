"""GEMM and convolution libraries side by side on the shared workloads' shapes.

Runs build/bench/gemm_libs_bench (OpenBLAS, BLIS, oneDNN, libxsmm: whichever
it found) and build/bench/conv_libs_bench (oneDNN), then the same shapes in
PyTorch 2 (torch.matmul, F.conv2d) and XLA:CPU (a jitted dot) from the venv
under build/ (bench/peers_torch.py, bench/peers_jax.py workers), and in xlite
(`xlite bench` of a one-dot or one-convolution module), all with 2 threads.
Prints GFLOP/s per shape and per shape class (the class's flops over its
summed time) with the best library of each, and xlite's share of that best.
The shapes are gemm_libs_bench's: its benchmark names carry them.
Measures only: no pass/fail.

Usage: bench/libs_compare.py [--build build] [--min-time 0.5] [--repeat 5]
       [--venv build/peers-venv] [--no-peers] [--no-xlite]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_workers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARIES = ["openblas", "blis", "onednn", "libxsmm"]
# The conv block's convolution: x[8,64,56,56], 3x3 weights [64,64,3,3], pad 1.
CONV = dict(n=8, c=64, h=56, w=56, o=64, kernel=3, pad=1)
CONV_FLOPS = 2.0 * 8 * 64 * 56 * 56 * 64 * 3 * 3


def run_google_benchmark(binary, min_time):
    """{benchmark name: (GFLOP/s, label)} from a Google Benchmark program's JSON."""
    done = subprocess.run([binary, f"--benchmark_min_time={min_time}",
                           "--benchmark_format=json"], capture_output=True, text=True)
    for line in done.stderr.splitlines():
        if "missing" in line:
            print(line)
    if done.returncode != 0:
        print(f"libs_compare: {binary} failed: {done.stderr.strip()[-300:]}")
        return {}
    # The programs count GFLOP/s as a rate of flops * 1e-9 per iteration.
    return {b["run_name"]: (b["GFLOP/s"], b.get("label", ""))
            for b in json.loads(done.stdout)["benchmarks"]}


def dot_hlo(batch, m, n, k, transpose_b):
    lead, bdims = (f"{batch},", "0") if batch > 1 else ("", "")
    rank = 3 if batch > 1 else 2
    b_shape = f"{lead}{n},{k}" if transpose_b else f"{lead}{k},{n}"
    rhs_contract = rank - 1 if transpose_b else rank - 2
    batch_attrs = f"lhs_batch_dims={{{bdims}}}, rhs_batch_dims={{{bdims}}}, " if bdims else ""
    return (f"HloModule dot\nENTRY main {{\n  a = f32[{lead}{m},{k}] parameter(0)\n"
            f"  b = f32[{b_shape}] parameter(1)\n"
            f"  ROOT c = f32[{lead}{m},{n}] dot(a, b), {batch_attrs}"
            f"lhs_contracting_dims={{{rank - 1}}}, rhs_contracting_dims={{{rhs_contract}}}\n}}\n")


CONV_HLO = """HloModule conv_bias_relu
ENTRY main {
  x = f32[8,64,56,56] parameter(0)
  w = f32[64,64,3,3] parameter(1)
  b = f32[64] parameter(2)
  conv = f32[8,64,56,56] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  bias = f32[8,64,56,56] broadcast(b), dimensions={1}
  sum = f32[8,64,56,56] add(conv, bias)
  zero = f32[] constant(0)
  zeros = f32[8,64,56,56] broadcast(zero), dimensions={}
  ROOT out = f32[8,64,56,56] maximum(sum, zeros)
}
"""


def xlite_ms(xlite, text, repeat):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "one.hlo")
        with open(path, "w") as f:
            f.write(text)
        done = subprocess.run([xlite, "bench", path, "--backend", "cpu", "--threads", "2",
                               "--warmup", "2", "--repeat", str(repeat), "--json"],
                              capture_output=True, text=True)
    if done.returncode != 0:
        print(f"libs_compare: xlite bench failed: {done.stderr.strip()[-200:]}")
        return None
    return json.loads(done.stdout)["median_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--min-time", type=float, default=0.5,
                        help="seconds Google Benchmark spends on each library benchmark")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each peer call")
    parser.add_argument("--venv", default=os.path.join(ROOT, "build", "peers-venv"))
    parser.add_argument("--no-peers", action="store_true", help="skip torch and XLA:CPU")
    parser.add_argument("--no-xlite", action="store_true", help="skip xlite's own dot/conv")
    args = parser.parse_args()
    gemm_bin = os.path.join(args.build, "bench", "gemm_libs_bench")
    conv_bin = os.path.join(args.build, "bench", "conv_libs_bench")
    xlite = os.path.join(args.build, "xlite", "tools", "xlite")
    if not os.access(gemm_bin, os.X_OK):
        sys.exit(f"libs_compare: no {gemm_bin} (build it: ninja gemm_libs_bench)")

    # shape key (workload.dot, class, BxMxNxK, nt|nn) -> {column: GFLOP/s}
    gemm = collections.OrderedDict()
    for name, (gflops, _) in run_google_benchmark(gemm_bin, args.min_time).items():
        library, dot, shape_class, dims, trans = name.split("/")[:5]
        gemm.setdefault((dot, shape_class, dims, trans), {})[library] = gflops
    conv = {}
    if os.access(conv_bin, os.X_OK):
        for name, (gflops, label) in run_google_benchmark(conv_bin, args.min_time).items():
            _, which, layout = name.split("/")[:3]
            conv[f"onednn {which.split('.')[1]} {layout} ({label})"] = gflops
    else:
        print(f"libs_compare: no {conv_bin} (needs oneDNN, libdnnl-dev): oneDNN conv missing")

    notes, workers, columns = [], [], [c for c in LIBRARIES
                                       if any(c in v for v in gemm.values())]
    if not args.no_peers:
        python = peer_workers.ensure_venv(args.venv, {"torch": "torch", "jax": "jax[cpu]"},
                                          notes)
        if python:
            torch, info = peer_workers.start_torch(python, "torch (venv)", notes)
            if torch:
                workers.append(("torch " + info["version"].split("+")[0], torch))
            jax, info = peer_workers.start(python, "peers_jax.py", "XLA:CPU (venv)", notes)
            if jax:
                workers.append(("XLA:CPU", jax))
    try:
        for label, worker in workers:
            columns.append(label)
            for (dot, shape_class, dims, trans), row in gemm.items():
                batch, m, n, k = (int(d) for d in dims.split("x"))
                reply = worker.ask(1200, op="gemm", m=m, n=n, k=k, transpose_b=trans == "nt",
                                   batch=batch, repeat=args.repeat)
                if "gflops" in reply:
                    row[label] = reply["gflops"]
                else:
                    notes.append(f"{label} {dot}: {reply['error']}")
            if label.startswith("torch"):
                reply = worker.ask(1200, op="conv", repeat=args.repeat, **CONV)
                if "gflops" in reply:
                    conv[f"{label} F.conv2d (bias)"] = reply["gflops"]
    finally:
        for _, worker in workers:
            worker.close()
    if not args.no_xlite and os.access(xlite, os.X_OK):
        columns.append("xlite")
        for (dot, shape_class, dims, trans), row in gemm.items():
            batch, m, n, k = (int(d) for d in dims.split("x"))
            ms = xlite_ms(xlite, dot_hlo(batch, m, n, k, trans == "nt"), args.repeat)
            if ms:
                row["xlite"] = 2.0 * batch * m * n * k / (ms * 1e6)
        ms = xlite_ms(xlite, CONV_HLO, args.repeat)
        if ms:
            conv["xlite conv + bias + relu (one module)"] = CONV_FLOPS / (ms * 1e6)

    for line in notes:
        print(line)
    libraries = [c for c in columns if c != "xlite"]
    print("GEMM, GFLOP/s (2 threads; B = batch, nt = B stored [N,K] and transposed):")
    print("| dot | class | BxMxNxK | " + " | ".join(columns) + " | best | xlite / best |")
    print("|---" * (len(columns) + 5) + "|")
    by_class = collections.OrderedDict()
    for (dot, shape_class, dims, trans), row in gemm.items():
        best = max((c for c in libraries if c in row), key=lambda c: row[c], default=None)
        cells = [dot, shape_class, f"{dims} {trans}"]
        cells += [f"{row[c]:.1f}" if c in row else "-" for c in columns]
        cells.append(best or "-")
        cells.append(f"{100 * row['xlite'] / row[best]:.0f}%" if best and "xlite" in row else "-")
        print("| " + " | ".join(cells) + " |")
        batch, m, n, k = (int(d) for d in dims.split("x"))
        flops = 2.0 * batch * m * n * k
        entry = by_class.setdefault(shape_class, {"flops": 0.0, "seconds": {}})
        entry["flops"] += flops
        for c, gflops in row.items():
            entry["seconds"].setdefault(c, []).append(flops / (gflops * 1e9))
    print("per shape class (class flops / summed time), GFLOP/s:")
    for shape_class, entry in by_class.items():
        count = len(entry["seconds"].get(libraries[0], [])) if libraries else 0
        rates = {c: entry["flops"] / sum(s) / 1e9 for c, s in entry["seconds"].items()
                 if len(s) == count}
        best = max((c for c in libraries if c in rates), key=lambda c: rates[c], default="-")
        text = ", ".join(f"{c} {rates[c]:.1f}" for c in columns if c in rates)
        print(f"  {shape_class}: {text}; best library: {best}")
    print("conv block convolution (8x64x56x56, 3x3, 64 -> 64, pad 1), GFLOP/s:")
    for label, gflops in conv.items():
        print(f"  {label:<72} {gflops:>7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
