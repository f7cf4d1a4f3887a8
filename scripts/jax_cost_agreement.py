#!/usr/bin/env python3
"""Compares `xlite cost --xla-compat --json` with XLA's HloCostAnalysis as
jaxlib runs it (the XLA:CPU client's `hlo_module_cost_analysis`) on the same
HLO text: flops, transcendentals and bytes accessed.

Two sets of modules: small hand-written ones, one op each (tuple-shaped
results, dynamic slicing, custom-calls), which must agree exactly; and the
model-sized modules of the corpus (modules of at least --min-kb of text; 0
takes every corpus module), which must agree within 1 % (XLA sums in
float32, so large totals round). Corpus files holding several modules are
split at their `HloModule` lines; modules jaxlib's parser or xlite's
verifier refuses are listed as skipped. Prints one line per module and a
summary; exits 1 on a disagreement. Skips (exit 0) when jax is not installed.

Usage: scripts/jax_cost_agreement.py [--xlite build/xlite/tools/xlite]
       [--corpus ../shared/corpus/hlo] [--min-kb 100]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import jax
    from jax._src.lib import _jax
    import jaxlib._hlo as hlo
except ImportError as e:
    print(f"jax_cost_agreement: skipped ({e.name} is not installed)")
    sys.exit(0)

jax.config.update("jax_platforms", "cpu")

KEYS = (("flops", "flops"), ("transcendentals", "transcendentals"),
        ("bytes accessed", "bytes_accessed"))

# name -> module text; each exercises one counting rule of XLA's.
SMALL = {
    "sort_pair": """
HloModule sort_pair
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY main {
  keys = f32[64,128] parameter(0)
  values = s32[64,128] parameter(1)
  ROOT sorted = (f32[64,128], s32[64,128]) sort(keys, values), dimensions={1}, to_apply=less
}""",
    "batch_norm_training": """
HloModule batch_norm_training
ENTRY main {
  x = f32[4,8,8,64] parameter(0)
  scale = f32[64] parameter(1)
  offset = f32[64] parameter(2)
  ROOT bn = (f32[4,8,8,64], f32[64], f32[64]) batch-norm-training(x, scale, offset), epsilon=0.001, feature_index=3
}""",
    "batch_norm_inference": """
HloModule batch_norm_inference
ENTRY main {
  x = f32[2,16,10] parameter(0)
  scale = f32[16] parameter(1)
  offset = f32[16] parameter(2)
  mean = f32[16] parameter(3)
  variance = f32[16] parameter(4)
  ROOT bn = f32[2,16,10] batch-norm-inference(x, scale, offset, mean, variance), epsilon=0.01, feature_index=1
}""",
    "batch_norm_grad": """
HloModule batch_norm_grad
ENTRY main {
  x = f32[16,32] parameter(0)
  scale = f32[32] parameter(1)
  mean = f32[32] parameter(2)
  variance = f32[32] parameter(3)
  grad = f32[16,32] parameter(4)
  ROOT bn = (f32[16,32], f32[32], f32[32]) batch-norm-grad(x, scale, mean, variance, grad), epsilon=0.001, feature_index=1
}""",
    "opt_barrier": """
HloModule opt_barrier
ENTRY main {
  a = f32[1024] parameter(0)
  b = f32[1024] parameter(1)
  pair = (f32[1024], f32[1024]) tuple(a, b)
  ROOT kept = (f32[1024], f32[1024]) opt-barrier(pair)
}""",
    "opt_barrier_nested": """
HloModule opt_barrier_nested
ENTRY main {
  p = (bf16[300], (s8[77], f64[5])) parameter(0)
  ROOT kept = (bf16[300], (s8[77], f64[5])) opt-barrier(p)
}""",
    "top_k": """
HloModule top_k
ENTRY main {
  x = f32[32,512] parameter(0)
  ROOT best = (f32[32,16], s32[32,16]) topk(x), k=16, largest=true
}""",
    "dynamic_slice": """
HloModule dynamic_slice
ENTRY main {
  x = f32[40,30,20] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  k = s32[] parameter(3)
  ROOT s = f32[4,3,2] dynamic-slice(x, i, j, k), dynamic_slice_sizes={4,3,2}
}""",
    "dynamic_update_slice": """
HloModule dynamic_update_slice
ENTRY main {
  x = bf16[96,48] parameter(0)
  patch = bf16[8,48] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT u = bf16[96,48] dynamic-update-slice(x, patch, i, j)
}""",
    "variadic_reduce": """
HloModule variadic_reduce
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  ge = pred[] compare(v0, v1), direction=GE
  v = f32[] select(ge, v0, v1)
  i = s32[] select(ge, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  x = f32[12,200] parameter(0)
  idx = s32[12,200] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT m = (f32[12], s32[12]) reduce(x, idx, lo, zero), dimensions={1}, to_apply=argmax
}""",
    "rng_bit_generator": """
HloModule rng_bit_generator
ENTRY main {
  state = u64[2] parameter(0)
  ROOT r = (u64[2], u32[64,8]) rng-bit-generator(state), algorithm=rng_philox
}""",
    "all_gather_tuple": """
HloModule all_gather_tuple, num_partitions=4
ENTRY main {
  a = f32[256] parameter(0)
  b = s32[8,2] parameter(1)
  ROOT g = (f32[1024], s32[32,2]) all-gather(a, b), dimensions={0}, replica_groups={{0,1,2,3}}
}""",
    "custom_call": """
HloModule custom_call
ENTRY main {
  x = f32[100] parameter(0)
  y = f32[100] tanh(x)
  ROOT c = f32[100] custom-call(y), custom_call_target="my_kernel"
}""",
}


def xla_cost(client, text):
    """XLA's totals, or None when jaxlib refuses the text."""
    try:
        module = hlo.hlo_module_from_text(text)
    except Exception:  # jaxlib raises its own status error types
        return None
    return _jax.hlo_module_cost_analysis(client, module)


def xlite_cost(xlite, text, workdir):
    path = os.path.join(workdir, "module.hlo")
    with open(path, "w") as f:
        f.write(text)
    run = subprocess.run([xlite, "cost", "--xla-compat", "--json", "--top", "1", path],
                         capture_output=True, text=True)
    if run.returncode != 0:
        message = run.stderr.strip().splitlines()[0] if run.stderr.strip() else "failed"
        verify = subprocess.run([xlite, "verify", path], capture_output=True, text=True)
        return None, ("rejected by xlite's verifier: " if verify.returncode else "") + message
    report = json.loads(run.stdout)
    return (report[0] if isinstance(report, list) else report), None


def relative(a, b):
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def split_modules(text):
    """The modules of a file, each from its `HloModule` line."""
    starts = [m.start() for m in re.finditer(r"^HloModule ", text, re.M)]
    return [text[s:e] for s, e in zip(starts, starts[1:] + [len(text)])]


def compare(name, text, client, args, workdir, tolerance):
    """Prints one line; returns 'equal', 'close', 'differ' or 'skipped'."""
    xla_totals = xla_cost(client, text)
    if xla_totals is None:
        print(f"  skipped  {name}: jaxlib's parser refuses it")
        return "skipped"
    mine, error = xlite_cost(args.xlite, text, workdir)
    if mine is None:
        verdict = "skipped" if error.startswith("rejected") else "differ"
        print(f"  {verdict:8} {name}: xlite: {error}")
        return verdict
    worst = 0.0
    cells = []
    for xla_key, xlite_key in KEYS:
        theirs = xla_totals.get(xla_key, 0.0)
        ours = mine[xlite_key]
        worst = max(worst, relative(ours, theirs))
        cells.append(f"{xlite_key} {ours:.6g}/{theirs:.6g}")
    verdict = "equal" if worst == 0 else "close" if worst <= tolerance else "differ"
    print(f"  {verdict:8} {name}: {', '.join(cells)} (xlite/XLA; worst {100 * worst:.4f} %)")
    return verdict


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xlite", default="build/xlite/tools/xlite")
    parser.add_argument("--corpus", default=os.environ.get("XLITE_CORPUS_DIR",
                                                           "../shared/corpus/hlo"))
    parser.add_argument("--min-kb", type=int, default=100)
    args = parser.parse_args()
    client = jax.devices("cpu")[0].client
    counts = {"small": {}, "corpus": {}}
    failed = []
    with tempfile.TemporaryDirectory() as workdir:
        print("small modules (must be equal):")
        for name, text in SMALL.items():
            verdict = compare(name, text.lstrip(), client, args, workdir, 0.0)
            counts["small"][verdict] = counts["small"].get(verdict, 0) + 1
            if verdict != "equal":
                failed.append(name)
        print(f"corpus modules of at least {args.min_kb} KB in {args.corpus} (within 1 %):")
        files = []
        if os.path.isdir(args.corpus):
            files = sorted(f for f in os.listdir(args.corpus) if f.endswith(".hlo"))
        compared = 0
        for file in files:
            with open(os.path.join(args.corpus, file)) as f:
                modules = split_modules(f.read())
            for i, text in enumerate(modules):
                if len(text) < args.min_kb * 1024:
                    continue
                compared += 1
                name = file if len(modules) == 1 else f"{file}#{i}"
                verdict = compare(name, text, client, args, workdir, 0.01)
                counts["corpus"][verdict] = counts["corpus"].get(verdict, 0) + 1
                if verdict == "differ":
                    failed.append(name)
        if compared == 0:
            print("  none found")
    for group, tally in counts.items():
        print(f"summary, {group}: " + ", ".join(f"{tally.get(k, 0)} {k}" for k in
                                                ("equal", "close", "differ", "skipped")))
    if failed:
        print("disagree: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
