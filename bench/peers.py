"""Side-by-side timing of the shared benchmark workloads: xlite, PyTorch eager, XLA:CPU.

For each WORKLOAD.hlo in the workload folder (its first line names the PyTorch
one-liner it computes) this runs `xlite bench --backend cpu` (the interpreter,
with a note, where the cpu backend is not built), the same computation in
PyTorch eager (2 threads) and, where a jax venv can be set up, in XLA:CPU
through jax.jit, on random inputs of the module's parameter shapes, and
prints the medians and the ratios. It also measures the best library GEMM
(numpy/OpenBLAS and torch sgemm 4096^3) and STREAM-like triad bandwidth
(numpy, and `xlite calibrate`) that the CPU backend's targets refer to.

Run through bench/peers.sh with the system python (python3-torch); the jax
part runs this file again in the venv's python with --jax-worker. Measures
only: no pass/fail.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREADS = 2

# One peer per workload, given the entry parameters in order.


def torch_peers(torch, F):
    def conv_block(x, w1, b1, w2, b2):
        return F.relu(F.conv2d(F.relu(F.conv2d(x, w1, b1, padding=1)), w2, b2, padding=1) + x)

    def elementwise_chain(x):
        return torch.sigmoid(x) * x + torch.tanh(x * 0.5) * 2.0

    def layernorm(x, gamma, beta):
        return F.layer_norm(x, (1024,), gamma, beta, 1e-5)

    def mlp(x, w1, b1, w2, b2):
        return F.linear(F.gelu(F.linear(x, w1, b1), approximate="tanh"), w2, b2)

    def reduce_sum(x):
        return x.sum(dim=1)

    def softmax(x):
        return torch.softmax(x, dim=-1)

    def transformer_block(x, g1, b1, w_qkv, b_qkv, w_o, b_o, g2, b2, w_fc1, b_fc1, w_fc2,
                          b_fc2):
        h = F.layer_norm(x, (768,), g1, b1)
        q, k, v = (t.reshape(1, 512, 12, 64).transpose(1, 2)
                   for t in F.linear(h, w_qkv, b_qkv).split(768, -1))
        attn = torch.softmax(q @ k.transpose(-2, -1) * 0.125, -1) @ v
        x = x + F.linear(attn.transpose(1, 2).reshape(1, 512, 768), w_o, b_o)
        h = F.layer_norm(x, (768,), g2, b2)
        return x + F.linear(F.gelu(F.linear(h, w_fc1, b_fc1), approximate="tanh"), w_fc2,
                            b_fc2)

    return dict(conv_block=conv_block, elementwise_chain=elementwise_chain,
                layernorm=layernorm, mlp=mlp, reduce_sum=reduce_sum, softmax=softmax,
                transformer_block=transformer_block)


def jax_peers(jax, jnp):
    def linear(x, w, b):
        return x @ w.T + b

    def layer_norm(x, gamma, beta):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * gamma + beta

    def conv(x, w, b):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)),
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y + b[None, :, None, None]

    def conv_block(x, w1, b1, w2, b2):
        return jax.nn.relu(conv(jax.nn.relu(conv(x, w1, b1)), w2, b2) + x)

    def elementwise_chain(x):
        return jax.nn.sigmoid(x) * x + jnp.tanh(x * 0.5) * 2.0

    def mlp(x, w1, b1, w2, b2):
        return linear(jax.nn.gelu(linear(x, w1, b1), approximate=True), w2, b2)

    def reduce_sum(x):
        return jnp.sum(x, axis=1)

    def softmax(x):
        return jax.nn.softmax(x, axis=-1)

    def transformer_block(x, g1, b1, w_qkv, b_qkv, w_o, b_o, g2, b2, w_fc1, b_fc1, w_fc2,
                          b_fc2):
        h = layer_norm(x, g1, b1)
        q, k, v = (t.reshape(1, 512, 12, 64).transpose(0, 2, 1, 3)
                   for t in jnp.split(linear(h, w_qkv, b_qkv), 3, axis=-1))
        attn = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) * 0.125, axis=-1) @ v
        x = x + linear(attn.transpose(0, 2, 1, 3).reshape(1, 512, 768), w_o, b_o)
        h = layer_norm(x, g2, b2)
        return x + linear(jax.nn.gelu(linear(h, w_fc1, b_fc1), approximate=True), w_fc2,
                          b_fc2)

    return dict(conv_block=conv_block, elementwise_chain=elementwise_chain,
                layernorm=layer_norm, mlp=mlp, reduce_sum=reduce_sum, softmax=softmax,
                transformer_block=transformer_block)


# bench/small_program_bench.cc's program: 20 elementwise ops on f32[16]; a
# binary op takes the previous value and x (even steps) or y (odd steps).
SMALL_PROGRAM = [
    ("add", True), ("multiply", True), ("subtract", True), ("maximum", True),
    ("tanh", False), ("multiply", True), ("add", True), ("negate", False),
    ("minimum", True), ("abs", False), ("add", True), ("exponential", False),
    ("multiply", True), ("subtract", True), ("logistic", False), ("add", True),
    ("divide", True), ("maximum", True), ("sqrt", False), ("add", True),
]


def small_program_us(torch, calls=20000):
    """Per-call microseconds of SMALL_PROGRAM in PyTorch eager."""
    ops = dict(add=torch.add, multiply=torch.mul, subtract=torch.sub, maximum=torch.maximum,
               minimum=torch.minimum, divide=torch.div, tanh=torch.tanh, negate=torch.neg,
               abs=torch.abs, exponential=torch.exp, logistic=torch.sigmoid, sqrt=torch.sqrt)
    x, y = torch.randn(16), torch.randn(16)

    def program():
        value = x
        for step, (opcode, binary) in enumerate(SMALL_PROGRAM, 1):
            value = ops[opcode](value, x if step % 2 == 0 else y) if binary else ops[opcode](value)
        return value

    batch = calls // 10
    with torch.inference_mode():
        return median_ms(lambda: [program() for _ in range(batch)], 1, 10) * 1e3 / batch


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


def entry_parameters(path):
    """The entry computation's f32 parameter shapes, in parameter order."""
    with open(path) as f:
        text = f.read()
    entry = text[text.index("ENTRY"):]
    found = {}
    for name, dims, index in re.findall(r"(\S+) = f32\[([0-9,]*)\]\S* parameter\((\d+)\)",
                                        entry):
        found[int(index)] = tuple(int(d) for d in dims.split(",") if d)
    if sorted(found) != list(range(len(found))):
        raise ValueError(f"{path}: cannot read the entry parameters (f32 only)")
    return [found[i] for i in range(len(found))]


def median_ms(call, warmup, repeat):
    for _ in range(warmup):
        call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def run_xlite(xlite, path, backend, args):
    command = [xlite, "bench", path, "--backend", backend, "--threads", str(THREADS),
               "--warmup", str(args.warmup), "--repeat", str(args.repeat), "--random", "0",
               "--json"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {args.timeout:g} s (--timeout)"
    if done.returncode != 0:
        return None, done.stderr.strip()
    return json.loads(done.stdout), ""


def jax_worker(args):
    """In the venv: prints {workload: median_ms or error string} as JSON."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    import numpy as np
    peers = jax_peers(jax, jnp)
    rng = np.random.default_rng(0)
    out = {"version": f"jax {jax.__version__}"}
    for path in args.paths:
        name = os.path.splitext(os.path.basename(path))[0]
        try:
            inputs = [jnp.asarray(rng.standard_normal(s, dtype=np.float32) * 0.1)
                      for s in entry_parameters(path)]
            fn = jax.jit(peers[name])
            out[name] = median_ms(lambda: fn(*inputs).block_until_ready(), args.warmup,
                                  args.repeat)
        except Exception as error:  # report any failure as the workload's result
            out[name] = f"{type(error).__name__}: {error}"
    print(json.dumps(out))


def measure_jax(args, paths):
    """XLA:CPU medians by workload, or the reason they were not measured."""
    if args.no_jax:
        return None, "--no-jax"
    python = os.path.join(args.venv, "bin", "python")
    if not os.access(python, os.X_OK):
        setup = subprocess.run(
            [sys.executable, "-m", "venv", args.venv], capture_output=True, text=True)
        if setup.returncode == 0:
            try:
                setup = subprocess.run([python, "-m", "pip", "install", "-q", "jax[cpu]"],
                                       capture_output=True, text=True, timeout=900)
            except subprocess.TimeoutExpired:
                return None, f"installing jax into {args.venv} took over 900 s"
        if setup.returncode != 0:
            lines = (setup.stderr or setup.stdout).strip().splitlines()
            return None, f"cannot install jax into {args.venv}: {lines[-1] if lines else '?'}"
    # XLA:CPU's thread pool takes every core (THREADS on the reference machine).
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    try:
        done = subprocess.run(
            # At least one warmup: the first call of a jitted function compiles it.
            [python, os.path.abspath(__file__), "--jax-worker",
             "--warmup", str(max(1, args.warmup)), "--repeat", str(args.repeat), *paths],
            capture_output=True, text=True, env=env, timeout=args.timeout * len(paths))
    except subprocess.TimeoutExpired:
        return None, f"the jax run took over {args.timeout * len(paths):g} s"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return None, f"the jax run failed: {lines[-1] if lines else '?'}"
    return json.loads(done.stdout.strip().splitlines()[-1]), ""


DOT_HLO = """HloModule dot_{n}
ENTRY main {{
  a = f32[{n},{n}] parameter(0)
  b = f32[{n},{n}] parameter(1)
  ROOT c = f32[{n},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}
"""


def library_limits(xlite, backend, args):
    """Best library sgemm and triad-like bandwidth on this machine, and xlite's dot.

    Returns (label, value, unit) rows and the figures the targets use.
    """
    import numpy as np
    import torch
    n = args.gemm_size
    rows = []
    a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    b = np.random.default_rng(1).standard_normal((n, n), dtype=np.float32)
    gemm_reps = max(1, min(args.repeat, 3))
    ms = median_ms(lambda: a @ b, 1, gemm_reps)
    gemm = {"numpy": 2 * n ** 3 / (ms * 1e6)}
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    ms = median_ms(lambda: torch.mm(ta, tb), 1, gemm_reps)
    gemm["torch"] = 2 * n ** 3 / (ms * 1e6)
    for lib, value in gemm.items():
        rows.append((f"{lib} sgemm {n}^3", value, "GFLOP/s"))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"dot_{n}.hlo")
        with open(path, "w") as f:
            f.write(DOT_HLO.format(n=n))
        dot_args = argparse.Namespace(warmup=min(args.warmup, 1), repeat=gemm_reps,
                                      timeout=args.timeout)
        xl, error = run_xlite(xlite, path, backend, dot_args)
    dot = xl["gflops"] if xl else None
    rows.append((f"xlite dot {n}^3 ({backend})", dot if dot else float("nan"), "GFLOP/s"))
    count = 16 << 20
    x = np.random.default_rng(2).standard_normal(count, dtype=np.float32)
    y = np.random.default_rng(3).standard_normal(count, dtype=np.float32)
    out = np.empty_like(x)

    def triad():  # a = b + s*c in two numpy passes, counted as one triad
        np.multiply(y, 3.0, out=out)
        np.add(out, x, out=out)

    ms = median_ms(triad, 1, 10)
    triad_gbs = {"numpy": 12 * count / (ms * 1e6)}
    rows.append(("numpy triad a=b+s*c, 16M f32 (12 B/element)", triad_gbs["numpy"], "GB/s"))
    done = subprocess.run([xlite, "calibrate", "--threads", str(THREADS)], capture_output=True,
                          text=True, timeout=120)
    if done.returncode == 0:
        spec = json.loads(done.stdout)
        triad_gbs["xlite calibrate"] = spec["memory_bandwidth_bytes_per_second"] / 1e9
        rows.append(("xlite calibrate triad", triad_gbs["xlite calibrate"], "GB/s"))
        rows.append(("xlite calibrate f32 FMA peak",
                     spec["peak_flops_per_second"]["f32"] / 1e9, "GFLOP/s"))
    return rows, max(gemm.values()), dot, max(triad_gbs.values())


def io_bytes(inputs, output):
    return sum(t.numel() * t.element_size() for t in inputs) + output.numel() * output.element_size()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="workload .hlo files (default: all in --dir)")
    parser.add_argument("--dir", default=os.path.join(os.path.dirname(ROOT), "shared", "bench"),
                        help="folder of the workloads (default: ../shared/bench of the repo)")
    parser.add_argument("--xlite", default=os.path.join(ROOT, "build", "xlite", "tools", "xlite"))
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=1200,
                        help="seconds one xlite bench may take")
    parser.add_argument("--venv", default=os.path.join(ROOT, "build", "peers-venv"))
    parser.add_argument("--no-jax", action="store_true", help="skip XLA:CPU")
    parser.add_argument("--no-limits", action="store_true",
                        help="skip the GEMM and bandwidth measurements")
    parser.add_argument("--gemm-size", type=int, default=4096)
    parser.add_argument("--jax-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.jax_worker:
        return jax_worker(args)
    paths = args.paths or sorted(
        os.path.join(args.dir, f) for f in os.listdir(args.dir) if f.endswith(".hlo"))
    if not os.access(args.xlite, os.X_OK):
        sys.exit(f"peers: no xlite binary at {args.xlite} (build it, or pass --xlite)")

    import torch
    import torch.nn.functional as F
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    peers = torch_peers(torch, F)

    backend = "cpu"
    results = []
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        print(f"peers: {name} ...", file=sys.stderr, flush=True)
        xl, error = run_xlite(args.xlite, path, backend, args)
        if xl is None and "unknown backend 'cpu'" in error:
            print("peers: note: this xlite has no cpu backend; measuring --backend interpreter",
                  file=sys.stderr)
            backend = "interpreter"
            xl, error = run_xlite(args.xlite, path, backend, args)
        inputs = [torch.randn(s) * 0.1 for s in entry_parameters(path)]
        with torch.inference_mode():
            output = peers[name](*inputs)
            torch_ms = median_ms(lambda: peers[name](*inputs), args.warmup, args.repeat)
        results.append(dict(name=name, xlite=xl, error=error, torch_ms=torch_ms,
                            io_bytes=io_bytes(inputs, output)))

    jax_ms, jax_reason = measure_jax(args, paths)
    print(f"xlite backend: {backend}, {THREADS} threads; torch {torch.__version__} eager, "
          f"{torch.get_num_threads()} threads; medians of {args.repeat} runs after "
          f"{args.warmup} warmup")
    print("speedup = peer time / xlite time (above 1: xlite is faster); "
          "GB/s = (inputs + output bytes) / xlite time; roofline = xlite bench's share of the "
          "host roofline (- without `xlite calibrate --install` or XLITE_HOST_SPEC)")
    header = f"{'workload':<18} {'xlite ms':>10} {'torch ms':>10} {'vs torch':>9}"
    if jax_ms:
        print(f"XLA:CPU: {jax_ms['version']} jax.jit of the same computation")
        header += f" {'xla ms':>10} {'vs xla':>8}"
    else:
        print(f"XLA:CPU: not measured ({jax_reason})")
    header += f" {'GFLOP/s':>9} {'GB/s':>7} {'roofline':>8}"
    print(header)
    for r in results:
        xl = r["xlite"]
        if xl is None:
            print(f"{r['name']:<18} xlite failed: {r['error']}")
            continue
        ms = xl["median_ms"]
        line = f"{r['name']:<18} {ms:>10.3f} {r['torch_ms']:>10.3f} {r['torch_ms'] / ms:>8.2f}x"
        if jax_ms:
            peer = jax_ms.get(r["name"])
            if isinstance(peer, float):
                line += f" {peer:>10.3f} {peer / ms:>7.2f}x"
            else:
                line += f" {'failed':>10} {'':>8}"
        line += f" {xl['gflops']:>9.2f} {r['io_bytes'] / (ms * 1e6):>7.2f}"
        share = xl["roofline_share"]
        line += f" {100 * share:>7.1f}%" if share is not None else f" {'-':>8}"
        print(line)
    if jax_ms:
        for r in results:
            if not isinstance(jax_ms.get(r["name"]), float):
                print(f"XLA:CPU {r['name']}: {jax_ms.get(r['name'])}")
    xlite_us, why = xlite_small_program_us(args.xlite)
    print("small program (20 elementwise ops on f32[16]), per call:")
    print(f"  torch eager: {small_program_us(torch):.2f} us")
    for name, us in xlite_us.items():
        print(f"  xlite {name}: {us:.2f} us (target: under 10 us)")
    if why:
        print(f"  xlite: not measured ({why})")
    if args.no_limits:
        return 0
    rows, best_gemm, dot, triad = library_limits(args.xlite, backend, args)
    print("library limits on this machine:")
    for label, value, unit in rows:
        print(f"  {label:<46} {value:>8.1f} {unit}")
    print("targets (issue 13):")
    if dot:
        print(f"  dot {args.gemm_size}^3: {100 * dot / best_gemm:.1f}% of the best library "
              f"GEMM (target 85%)")
    chain = next((r for r in results if r["name"] == "elementwise_chain" and r["xlite"]), None)
    if chain:
        gbs = chain["io_bytes"] / (chain["xlite"]["median_ms"] * 1e6)
        print(f"  elementwise_chain: {gbs:.1f} GB/s, {100 * gbs / triad:.1f}% of the best triad "
              f"bandwidth (target 70%)")
    return 0

if __name__ == "__main__":
    sys.exit(main())
