#!/usr/bin/env python3
"""Runs bf16 and f16 JAX programs in XLA:CPU and in `xlite run` on the same
inputs and compares the results: a bf16 training step whose weights come
from an .npz of ml_dtypes bfloat16 arrays (as a JAX user saves them), f16 and
bf16 reductions (jnp.sum, mean, max, cumsum, logsumexp, and lax.reduce that
adds in the narrow type itself), and sort/top_k of narrow arrays.

A lax.reduce sum in the narrow type is also checked against the exact sum
rounded once to that type: xlite accumulates such sums in f32 and must be
within one ulp of it; XLA:CPU folds in windows of 32 rounding every add
(TreeReductionRewriter, FloatNormalization), so its distance is printed
beside and such a program agrees when xlite is within one ulp.

Inputs go to xlite as `np.savez` writes them (bf16 as ml_dtypes arrays) and
its results come back through `--output` and `np.load`, so the dtype
round trip is checked too. A result agrees when its largest difference,
relative to its largest |value|, is at most two epsilons of the program's
narrowest float type (a f32 loss computed from bf16 data is as precise as
bf16: XLA:CPU keeps fused bf16 arithmetic in f32 where xlite rounds after
each instruction).
Prints one line per program and a summary; exits 1 when a program differs or
fails in xlite. Skips (exit 0) when jax or ml_dtypes is not installed.

Usage: scripts/jax_narrow_agreement.py [--xlite build/xlite/tools/xlite]
       [--workdir build/narrow-agreement] [--backend cpu|interpreter]
"""
import argparse
import os
import sys

try:
    import jax
    import jax.numpy as jnp
    import ml_dtypes
    import numpy as np
    from jax import lax
    from jax_xlite_run import run_both
except ImportError as e:
    print(f"jax_narrow_agreement: skipped ({e.name} is not installed)")
    sys.exit(0)

jax.config.update("jax_platforms", "cpu")
BF16 = ml_dtypes.bfloat16


def mlp_loss(params, x, y):
    w1, b1, w2 = params
    h = jax.nn.gelu(x @ w1 + b1)
    logits = h @ w2
    return jnp.mean(optax_like_softmax_xent(logits, y))


def optax_like_softmax_xent(logits, labels):
    logp = jax.nn.log_softmax(logits.astype(jnp.float32), axis=-1)
    return -jnp.sum(labels * logp, axis=-1)


def train_step(w1, b1, w2, x, y):
    loss, grads = jax.value_and_grad(mlp_loss)((w1, b1, w2), x, y)
    new = [p - (0.1 * g).astype(p.dtype) for p, g in zip((w1, b1, w2), grads)]
    return loss, *new


def narrow_add_reduce(x):
    # Adds in x's own type, as a hand-written lax.reduce does.
    return lax.reduce(x, np.array(0, x.dtype), lax.add, (0,))


def train_step_inputs(rng):
    w1 = (rng.standard_normal((64, 128)) / 8).astype(BF16)
    b1 = np.zeros(128, BF16)
    w2 = (rng.standard_normal((128, 10)) / 11).astype(BF16)
    x = rng.standard_normal((32, 64)).astype(BF16)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 32)]
    return [w1, b1, w2, x, y]


def vector(dtype, n):
    return lambda rng: [rng.standard_normal(n).astype(dtype)]


def matrix(dtype, rows, cols):
    return lambda rng: [rng.standard_normal((rows, cols)).astype(dtype)]


def exact_sum(x):
    """The sum in f64 rounded once to x's type (within an ulp of f32's)."""
    return np.array(np.sum(x.astype(np.float64)), x.dtype)


PROGRAMS = [
    ("bf16_train_step", train_step, train_step_inputs),
    ("f16_sum_1M", jnp.sum, vector(np.float16, 1 << 20)),
    ("bf16_sum_1M", jnp.sum, vector(BF16, 1 << 20)),
    ("f16_mean_rows", lambda x: jnp.mean(x, axis=1), matrix(np.float16, 64, 4096)),
    ("bf16_max_cols", lambda x: jnp.max(x, axis=0), matrix(BF16, 4096, 64)),
    ("bf16_cumsum", lambda x: jnp.cumsum(x, axis=1), matrix(BF16, 8, 512)),
    ("f16_logsumexp", lambda x: jax.nn.logsumexp(x, axis=1), matrix(np.float16, 16, 1024)),
    ("f16_lax_add_reduce", narrow_add_reduce, vector(np.float16, 4096), exact_sum),
    ("bf16_lax_add_reduce", narrow_add_reduce, vector(BF16, 4096), exact_sum),
    ("bf16_sort", lambda x: jnp.sort(x, axis=1), matrix(BF16, 16, 256)),
    ("f16_top_k", lambda x: lax.top_k(x, 8), matrix(np.float16, 16, 256)),
]


def narrowest_epsilon(arrays):
    """The largest epsilon among the float arrays (1 where there are none)."""
    eps = [float(ml_dtypes.finfo(a.dtype).eps) for a in arrays
           if a.dtype.kind == "f" or a.dtype in (BF16, np.float16)]
    return max(eps, default=1.0)


def compare(expected, actual, eps):
    """Largest difference relative to max |expected|, in units of `eps`."""
    if expected.shape != actual.shape or expected.dtype != actual.dtype:
        return float("inf"), f"got {actual.dtype}{list(actual.shape)}"
    e, a = expected.astype(np.float64), actual.astype(np.float64)
    if e.size == 0:
        return 0.0, ""
    scale = max(float(np.max(np.abs(e))), 1e-30)
    return float(np.max(np.abs(e - a))) / scale / eps, ""


def ulps(reference, value):
    """|value - reference| in ulps of the scalar reference's type."""
    r = float(reference.astype(np.float64))
    ulp = float(ml_dtypes.finfo(reference.dtype).eps) * 2.0 ** np.floor(np.log2(max(abs(r), 1e-30)))
    return abs(float(np.asarray(value).astype(np.float64)) - r) / ulp


def run_case(args, name, fn, make_inputs, rng, reference=None):
    inputs = make_inputs(rng)
    # Positional arrays, as a user's np.savez(*arrays) names them.
    expected, actual, error = run_both(args.xlite, args.backend, os.path.join(args.workdir, name),
                                       fn, inputs, positional=True)
    if actual is None:
        return None, error
    if reference is not None:
        ref = reference(*inputs)
        xlite_ulps, xla_ulps = ulps(ref, actual[0]), ulps(ref, expected[0])
        note = f"(exact sum rounded once: xlite {xlite_ulps:.1f} ulp, XLA:CPU {xla_ulps:.1f} ulp)"
        return (0.0 if xlite_ulps <= 1 else float("inf")), note
    worst, note = 0.0, ""
    eps = narrowest_epsilon(inputs)
    for e, a in zip(expected, actual):
        diff, why = compare(e, a, eps)
        if diff > worst:
            worst, note = diff, why
    return worst, note


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xlite", default="build/xlite/tools/xlite")
    parser.add_argument("--workdir", default="build/narrow-agreement")
    parser.add_argument("--backend", default="cpu")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    rng = np.random.default_rng(0)
    print(f"jax {jax.__version__}, ml_dtypes {ml_dtypes.__version__}, "
          f"xlite --backend {args.backend}")
    agree = differ = failed = 0
    for name, fn, make_inputs, *reference in PROGRAMS:
        diff, note = run_case(args, name, fn, make_inputs, rng, *reference)
        if diff is None:
            failed += 1
            print(f"FAIL   {name:22s} {note}")
        elif diff <= 2:
            agree += 1
            print(f"ok     {name:22s} max diff {diff:.2f} eps {note}")
        else:
            differ += 1
            print(f"DIFFER {name:22s} max diff {diff:.2f} eps {note}")
    total = agree + differ + failed
    print(f"{agree}/{total} programs agree (with XLA:CPU, or with the exact sum where it is "
          f"printed), {differ} differ, {failed} fail in xlite")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
