#!/usr/bin/env python3
"""Runs jnp.linalg / jax.scipy.linalg programs in XLA:CPU and in `xlite run`
on the same inputs and compares the results.

Each program is jitted, lowered to HLO text (the LAPACK custom-calls JAX's
CPU lowering emits), run by XLA:CPU, and run by xlite on the same .npz
inputs. Results that LAPACK defines only up to a phase (eigenvectors,
singular vectors) are normalised inside the program, so both sides run the
very same HLO. Prints one line per program and dtype with the largest
difference relative to the largest |value|, and a summary; exits 1 when a
program differs by more than the dtype's tolerance or fails in xlite.
Skips (exit 0) when jax is not installed.

Usage: scripts/jax_linalg_agreement.py [--xlite build/xlite/tools/xlite]
       [--workdir build/linalg-agreement] [--backend cpu|interpreter]
"""
import argparse
import os
import sys

try:
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl
    import numpy as np
    from jax_xlite_run import run_both
except ImportError as e:
    print(f"jax_linalg_agreement: skipped ({e.name} is not installed)")
    sys.exit(0)

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

TOLERANCE = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-11, "complex128": 1e-11}


def unit_phase(v, axis):
    """v scaled so that its largest-magnitude entry along `axis` is real > 0."""
    idx = jnp.argmax(jnp.abs(v), axis=axis, keepdims=True)
    top = jnp.take_along_axis(v, idx, axis=axis)
    return v * (jnp.conj(top) / jnp.abs(top))


def sorted_eig(a):
    w, v = jnp.linalg.eig(a)
    order = jnp.lexsort((jnp.round(w.imag, 4), jnp.round(w.real, 4)), axis=-1)
    w = jnp.take_along_axis(w, order, axis=-1)
    v = jnp.take_along_axis(v, order[..., None, :], axis=-1)
    return w, unit_phase(v, -2)


def svd_normalised(a):
    u, s, vt = jnp.linalg.svd(a, full_matrices=False)
    return s, unit_phase(u, -2), (u * s[..., None, :]) @ vt


def eigh_normalised(a):
    w, v = jnp.linalg.eigh(a)
    return w, unit_phase(v, -2)


def schur_invariants(a):
    """What every Schur form of `a` shares: T's diagonal (sorted), zeros
    below T's diagonal (below its first subdiagonal for a real T, whose 2x2
    blocks hold complex pairs), a unitary Z, and Z T Z^H = a. T and Z themselves are
    not unique (the diagonal's order and Z's column phases depend on how the
    QR iteration converged, which differs between LAPACK builds)."""
    t, z = jsl.schur(a)
    zh = jnp.conj(jnp.swapaxes(z, -1, -2))
    diagonal = jnp.diagonal(t, axis1=-2, axis2=-1)
    order = jnp.lexsort((jnp.round(diagonal.imag, 4), jnp.round(diagonal.real, 4)), axis=-1)
    below = -1 if jnp.iscomplexobj(t) else -2
    return (jnp.take_along_axis(diagonal, order, axis=-1), jnp.tril(t, below), zh @ z,
            z @ t @ zh)


PROGRAMS = [
    # name, function, input kinds ("spd", "general", "lower", "rhs", "wide")
    ("cholesky", jnp.linalg.cholesky, ["spd"]),
    ("solve_triangular", lambda a, b: jsl.solve_triangular(a, b, lower=True), ["lower", "rhs"]),
    ("solve_triangular_T", lambda a, b: jsl.solve_triangular(a, b, lower=True, trans="C"),
     ["lower", "rhs"]),
    ("triangular_right", lambda a, b: jax.lax.linalg.triangular_solve(
        a, b, left_side=False, lower=True, transpose_a=True), ["lower", "rhs_t"]),
    ("qr", jnp.linalg.qr, ["tall"]),
    ("qr_complete", lambda a: jnp.linalg.qr(a, mode="complete"), ["tall"]),
    ("qr_wide", jnp.linalg.qr, ["wide"]),
    ("eigh", eigh_normalised, ["spd"]),
    ("eigvalsh", jnp.linalg.eigvalsh, ["spd"]),
    ("lu", jax.lax.linalg.lu, ["general"]),
    ("solve", jnp.linalg.solve, ["general", "rhs"]),
    ("inv", jnp.linalg.inv, ["general"]),
    ("det", jnp.linalg.det, ["general"]),
    ("slogdet", lambda a: tuple(jnp.linalg.slogdet(a)), ["general"]),
    ("svd", svd_normalised, ["tall"]),
    ("svdvals", lambda a: jnp.linalg.svd(a, compute_uv=False), ["wide"]),
    ("svd_qr", lambda a: jax.lax.linalg.svd(
        a, full_matrices=False, compute_uv=False, algorithm=jax.lax.linalg.SvdAlgorithm.QR),
     ["tall"]),
    ("pinv", jnp.linalg.pinv, ["tall"]),
    ("eig", sorted_eig, ["general"]),
    ("eigvals", lambda a: jnp.sort(jnp.linalg.eigvals(a)), ["general"]),
    ("schur", schur_invariants, ["general"]),
    ("hessenberg", lambda a: jsl.hessenberg(a, calc_q=True), ["general"]),
    ("tridiagonal", lambda a: jax.lax.linalg.tridiagonal(a)[1:4], ["spd"]),
]


def make_input(kind, dtype, rng, batch=(2,), n=5):
    def draw(shape):
        x = rng.standard_normal(shape)
        if np.issubdtype(dtype, np.complexfloating):
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(dtype)

    if kind == "tall":
        return draw(batch + (n + 2, n))
    if kind == "wide":
        return draw(batch + (n, n + 2))
    if kind == "rhs":
        return draw(batch + (n, 3))
    if kind == "rhs_t":
        return draw(batch + (3, n))
    a = draw(batch + (n, n))
    if kind == "spd":
        return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)
    if kind == "lower":
        return (np.tril(a) + 2 * n * np.eye(n)).astype(dtype)
    return a


def relative_difference(expected, actual):
    scale = max(1.0, float(np.max(np.abs(expected))) if expected.size else 1.0)
    if expected.shape != actual.shape:
        return float("inf")
    if expected.size == 0:
        return 0.0
    return float(np.max(np.abs(expected.astype(np.complex128) - actual))) / scale


def run_case(args, name, fn, kinds, dtype, rng):
    inputs = [make_input(k, dtype, rng) for k in kinds]
    base = os.path.join(args.workdir, f"{name}_{np.dtype(dtype).name}")
    expected, actual, error = run_both(args.xlite, args.backend, base, fn, inputs)
    if actual is None:
        return None, error
    return max(relative_difference(e, a) for e, a in zip(expected, actual)), ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xlite", default="build/xlite/tools/xlite")
    parser.add_argument("--workdir", default="build/linalg-agreement")
    parser.add_argument("--backend", default="cpu")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    rng = np.random.default_rng(0)
    print(f"jax {jax.__version__}, xlite --backend {args.backend}")
    agree = differ = failed = 0
    for name, fn, kinds in PROGRAMS:
        for dtype in (np.float32, np.float64, np.complex64, np.complex128):
            dname = np.dtype(dtype).name
            diff, error = run_case(args, name, fn, kinds, dtype, rng)
            if diff is None:
                failed += 1
                print(f"FAIL   {name:20s} {dname:10s} {error}")
            elif diff <= TOLERANCE[dname]:
                agree += 1
                print(f"ok     {name:20s} {dname:10s} max rel diff {diff:.2e}")
            else:
                differ += 1
                print(f"DIFFER {name:20s} {dname:10s} max rel diff {diff:.2e}")
    total = agree + differ + failed
    print(f"{agree}/{total} programs agree with XLA:CPU, {differ} differ, {failed} fail in xlite")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main())
