"""Side-by-side timing of the shared benchmark workloads: xlite against the
peers a user picks, in one run, interleaved round by round.

Peers (each optional; a missing one is named with the reason): PyTorch eager
from the system python (Debian python3-torch), PyTorch 2 from PyPI eager and
through torch.compile (inductor), XLA:CPU through jax.jit of the same
computation and XLA:CPU compiling the very HLO file xlite runs; the PyPI ones
live in a venv under build/ that is created with pip where missing. Every peer
is a worker process that stays alive for the run (bench/peers_torch.py,
bench/peers_jax.py), so that its compiled functions are timed again in each
round. A round times every workload once on xlite (`xlite bench --backend
cpu --threads 2`) and on every peer, in an order that rotates with the round;
the table gives the median over rounds of each one's median, and ratio = the
median over rounds of peer time / xlite time of the same round (above 1:
xlite faster). Then the 20-op small program's cost per call, and the host's
GEMM and bandwidth limits. Measures only: no pass/fail.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_workers  # noqa: E402
from peer_common import entry_parameters, median_ms, workload_name  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREADS = 2


def machine_line():
    model, flags = "?", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
    avx512 = sorted(f for f in flags if f.startswith("avx512"))
    return (f"machine: {model}, {os.cpu_count()} cores, "
            + (f"AVX-512 ({' '.join(avx512)})" if avx512 else "no AVX-512"))


def run_xlite(xlite, path, backend, warmup, repeat, timeout):
    command = [xlite, "bench", path, "--backend", backend, "--threads", str(THREADS),
               "--warmup", str(warmup), "--repeat", str(repeat), "--random", "0", "--json"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:g} s (--timeout)"
    if done.returncode != 0:
        return None, done.stderr.strip()
    return json.loads(done.stdout), ""


def xlite_small_program_us(xlite):
    """small_program_bench's per-call microseconds by backend, or why there are none."""
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(xlite))))
    binary = os.path.join(build, "bench", "small_program_bench")
    if not os.access(binary, os.X_OK):
        return {}, f"no {binary} (build it: ninja small_program_bench)"
    done = subprocess.run([binary, "--benchmark_format=json"], capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        return {}, f"small_program_bench failed: {done.stderr.strip()[-200:]}"
    found = {}
    for b in json.loads(done.stdout)["benchmarks"]:
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b["time_unit"]]
        found[b["name"].split("/", 1)[1]] = b["real_time"] * scale
    return found, ""


def start_peers(args, notes):
    """[(column label, worker, mode)] of every peer that started, and the
    workers' info lines."""
    peers, infos, workers = [], [], []
    if not args.no_torch1:
        worker, info = peer_workers.start_torch(peer_workers.SYSTEM_PYTHON, "torch (system)",
                                                notes)
        if worker:
            workers.append(worker)
            peers.append((f"torch {info['version']} eager", worker, "eager"))
            infos.append(f"torch (system python): {info['version']}, {info['threads']} "
                         f"threads, {info['capability']}")
    packages = {}
    if not args.no_torch2:
        packages["torch"] = "torch"
    if not args.no_jax:
        packages["jax"] = "jax[cpu]"
    python = peer_workers.ensure_venv(args.venv, packages, notes) if packages else None
    if python and not args.no_torch2:
        worker, info = peer_workers.start_torch(python, "torch 2 (venv)", notes)
        if worker and not info["version"].startswith("1."):
            workers.append(worker)
            short = info["version"].split("+")[0]
            peers.append((f"torch {short} eager", worker, "eager"))
            if not args.no_compile:
                peers.append((f"torch {short} compile", worker, "compile"))
            infos.append(f"torch (venv): {info['version']}, {info['threads']} threads, "
                         f"{info['capability']}, torch.compile default (inductor)")
        elif worker:
            worker.close()
            notes.append(f"torch 2 (venv): not measured (the venv has torch {info['version']})")
    if python and not args.no_jax:
        worker, info = peer_workers.start(python, "peers_jax.py", "XLA:CPU (venv)", notes)
        if worker:
            workers.append(worker)
            peers.append(("XLA:CPU jax.jit", worker, "jit"))
            peers.append(("XLA:CPU same HLO", worker, "hlo"))
            infos.append(f"XLA:CPU: {info['version']}, intra-op threads {info['threads']}")
    return peers, infos, workers


def measure_rounds(args, paths, peers, backend):
    """{workload: {column: [ms per round]}}; failures as {column: error}."""
    times = {workload_name(p): {} for p in paths}
    errors = {workload_name(p): {} for p in paths}
    columns = ["xlite"] + [label for label, _, _ in peers]
    for round_index in range(args.rounds):
        for path in paths:
            name = workload_name(path)
            shift = round_index % len(columns)
            for column in columns[shift:] + columns[:shift]:
                if column in errors[name]:
                    continue
                print(f"peers: round {round_index + 1}/{args.rounds} {name} {column}",
                      file=sys.stderr, flush=True)
                if column == "xlite":
                    xl, error = run_xlite(args.xlite, path, backend, args.warmup, args.repeat,
                                          args.timeout)
                    reply = {"ms": xl["median_ms"], "xlite": xl} if xl else {"error": error}
                else:
                    _, worker, mode = next(p for p in peers if p[0] == column)
                    reply = worker.ask(args.timeout, op="time", mode=mode,
                                       path=os.path.abspath(path), warmup=args.warmup,
                                       repeat=args.repeat)
                if "error" in reply:
                    errors[name][column] = reply["error"]
                else:
                    times[name].setdefault(column, []).append(reply["ms"])
                    if "xlite" in reply:
                        times[name]["xlite json"] = reply["xlite"]
    return times, errors


def io_bytes(path):
    """Bytes of the entry's f32 parameters and its f32 ROOT."""
    import re
    with open(path) as f:
        entry = f.read().split("ENTRY", 1)[1]
    root = re.search(r"ROOT \S+ = f32\[([0-9,]*)\]", entry)
    sizes = [s for s in entry_parameters(path)]
    if root:
        sizes.append(tuple(int(d) for d in root.group(1).split(",") if d))
    total = 0
    for shape in sizes:
        count = 1
        for d in shape:
            count *= d
        total += 4 * count
    return total


def print_table(paths, peers, times, errors):
    columns = [label for label, _, _ in peers]
    print("| workload | xlite | " + "".join(f"{c} | " for c in columns) +
          "xlite GFLOP/s | xlite GB/s |")
    print("|---" * (len(columns) + 4) + "|")
    for path in paths:
        name = workload_name(path)
        row = times[name]
        if "xlite" not in row:
            print(f"| {name} | failed: {errors[name].get('xlite', '?')[:120]} |")
            continue
        xlite_ms = row["xlite"]
        cells = [name, f"{statistics.median(xlite_ms):.2f} ms"]
        for column in columns:
            if column not in row:
                cells.append("failed")
                continue
            peer = row[column]
            ratios = [p / x for p, x in zip(peer, xlite_ms)]
            cells.append(f"{statistics.median(peer):.2f} ms ({statistics.median(ratios):.2f}x)")
        xl = row["xlite json"]
        cells.append(f"{xl['gflops']:.1f}")
        cells.append(f"{io_bytes(path) / (statistics.median(xlite_ms) * 1e6):.1f}")
        print("| " + " | ".join(cells) + " |")
    for path in paths:
        for column, error in errors[workload_name(path)].items():
            print(f"{column} {workload_name(path)}: {error}")


DOT_HLO = """HloModule dot_{n}
ENTRY main {{
  a = f32[{n},{n}] parameter(0)
  b = f32[{n},{n}] parameter(1)
  ROOT c = f32[{n},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}
"""


def print_limits(args, backend, peers, chain_gbs):
    """The host's GEMM (numpy/OpenBLAS, each peer's own, xlite's dot) and
    bandwidth (numpy triad, `xlite calibrate`) limits."""
    import numpy as np
    n = args.gemm_size
    reps = max(1, min(args.repeat, 3))
    gemm = {}
    a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    b = np.random.default_rng(1).standard_normal((n, n), dtype=np.float32)
    gemm["numpy (system)"] = 2 * n ** 3 / (median_ms(lambda: a @ b, 1, reps) * 1e6)
    for label, worker, mode in peers:
        if mode in ("eager", "jit"):
            reply = worker.ask(args.timeout, op="gemm", m=n, n=n, k=n, transpose_b=False,
                               batch=1, repeat=reps)
            if "gflops" in reply:
                gemm[label.replace(" eager", "").replace(" jax.jit", "")] = reply["gflops"]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"dot_{n}.hlo")
        with open(path, "w") as f:
            f.write(DOT_HLO.format(n=n))
        xl, _ = run_xlite(args.xlite, path, backend, 1, reps, args.timeout)
    print("library limits on this machine:")
    for label, value in gemm.items():
        print(f"  {label + f' sgemm {n}^3':<46} {value:>8.1f} GFLOP/s")
    best = max(gemm.values())
    if xl:
        print(f"  {f'xlite dot {n}^3 ({backend})':<46} {xl['gflops']:>8.1f} GFLOP/s "
              f"({100 * xl['gflops'] / best:.1f}% of the best above)")
    count = 16 << 20
    x = np.random.default_rng(2).standard_normal(count, dtype=np.float32)
    y = np.random.default_rng(3).standard_normal(count, dtype=np.float32)
    out = np.empty_like(x)

    def triad():  # a = b + s*c in two numpy passes, counted as one triad
        np.multiply(y, 3.0, out=out)
        np.add(out, x, out=out)

    triad_gbs = [12 * count / (median_ms(triad, 1, 10) * 1e6)]
    print(f"  {'numpy triad a=b+s*c, 16M f32 (12 B/element)':<46} {triad_gbs[0]:>8.1f} GB/s")
    done = subprocess.run([args.xlite, "calibrate", "--threads", str(THREADS)],
                          capture_output=True, text=True, timeout=120)
    if done.returncode == 0:
        spec = json.loads(done.stdout)
        triad_gbs.append(spec["memory_bandwidth_bytes_per_second"] / 1e9)
        print(f"  {'xlite calibrate triad':<46} {triad_gbs[1]:>8.1f} GB/s")
        print(f"  {'xlite calibrate f32 FMA peak':<46} "
              f"{spec['peak_flops_per_second']['f32'] / 1e9:>8.1f} GFLOP/s")
    if chain_gbs:
        print(f"  elementwise_chain: {chain_gbs:.1f} GB/s, "
              f"{100 * chain_gbs / max(triad_gbs):.1f}% of the best triad")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="workload .hlo files (default: all in --dir)")
    parser.add_argument("--dir", default=os.path.join(os.path.dirname(ROOT), "shared", "bench"),
                        help="folder of the workloads (default: ../shared/bench of the repo)")
    parser.add_argument("--xlite", default=os.path.join(ROOT, "build", "xlite", "tools", "xlite"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs per round")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per round")
    parser.add_argument("--timeout", type=float, default=1200,
                        help="seconds one measurement (compile included) may take")
    parser.add_argument("--venv", default=os.path.join(ROOT, "build", "peers-venv"))
    parser.add_argument("--no-torch1", action="store_true", help="skip the system torch")
    parser.add_argument("--no-torch2", action="store_true", help="skip the venv's torch")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("--no-jax", action="store_true", help="skip XLA:CPU")
    parser.add_argument("--no-limits", action="store_true",
                        help="skip the GEMM and bandwidth measurements")
    parser.add_argument("--gemm-size", type=int, default=4096)
    args = parser.parse_args()
    paths = args.paths or sorted(
        os.path.join(args.dir, f) for f in os.listdir(args.dir) if f.endswith(".hlo"))
    if not os.access(args.xlite, os.X_OK):
        sys.exit(f"peers: no xlite binary at {args.xlite} (build it, or pass --xlite)")
    backend = "cpu"
    probe, error = run_xlite(args.xlite, paths[0], backend, 0, 1, args.timeout)
    if probe is None and "unknown backend 'cpu'" in error:
        print("peers: note: this xlite has no cpu backend; measuring --backend interpreter",
              file=sys.stderr)
        backend = "interpreter"

    notes = []
    peers, infos, workers = start_peers(args, notes)
    try:
        times, errors = measure_rounds(args, paths, peers, backend)
        print(machine_line())
        print(f"xlite: backend {backend}, {THREADS} threads")
        for line in infos + notes:
            print(line)
        print(f"{args.rounds} rounds, interleaved; each round {args.warmup} warmup + "
              f"{args.repeat} timed runs per peer and workload; cells: median over rounds of "
              f"the round's median (median over rounds of peer / xlite in the same round; "
              f"above 1: xlite faster)")
        print_table(paths, peers, times, errors)
        xlite_us, why = xlite_small_program_us(args.xlite)
        print("small program (20 elementwise ops on f32[16]), per call:")
        for label, worker, mode in peers:
            if mode == "eager":
                reply = worker.ask(args.timeout, op="small_program", calls=20000)
                if "us" in reply:
                    print(f"  {label}: {reply['us']:.2f} us")
        for name, us in xlite_us.items():
            print(f"  xlite {name}: {us:.2f} us")
        if why:
            print(f"  xlite: not measured ({why})")
        if not args.no_limits:
            chain = next((p for p in paths if workload_name(p) == "elementwise_chain"), None)
            chain_ms = times.get("elementwise_chain", {}).get("xlite") if chain else None
            chain_gbs = io_bytes(chain) / (statistics.median(chain_ms) * 1e6) if chain_ms else 0
            print_limits(args, backend, peers, chain_gbs)
    finally:
        for worker in workers:
            worker.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
