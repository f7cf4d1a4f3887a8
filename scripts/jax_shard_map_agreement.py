#!/usr/bin/env python3
"""Agreement of xlite with XLA on jax.shard_map programs as JAX 0.10 writes them.

JAX 0.10 lowers with Shardy by default: `xla.sdy.*` frontend attributes and
`xla.sdy.GlobalToLocalShape` / `LocalToGlobalShape` custom-calls around a
call of `xla.sdy.manual_computation_body`. For each program below (8 CPU
devices; meshes 8, 2x4, 4x2, 2x2x2) the script runs it in JAX, dumps XLA's
module before optimizations and after `spmd-partitioning`, then

- runs `xlite run --spmd` on the before-module with the same inputs and
  compares the results with JAX's (f32 within 1e-5 relative to the result's
  magnitude, integers exact);
- counts the collectives by opcode in `xlite opt --pipeline=spmd`'s module
  and in XLA's partitioned module (a regex on opcodes: XLA's replica-group
  syntax is not parsed here).

Programs named `gspmd_*` are lowered with `jax_use_shardy_partitioner`
off, giving the GSPMD form (SPMDFullToShardShape, `last_tile_dims={manual}`).
Needs jax (`python3 -m venv /work/jax-venv && /work/jax-venv/bin/pip install
jax numpy ml_dtypes`); without it the script says so and exits 0:

  /work/jax-venv/bin/python scripts/jax_shard_map_agreement.py [--xlite build/xlite/tools/xlite]
      [--keep DIR] [--mpi] [names...]

It only measures (no part of ctest); docs/spmd.md quotes its figures.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")
PROGRAMS = {}


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


def also_on_gspmd(fn):
    """Registers the program a second time as gspmd_<name>, lowered on the GSPMD path."""
    PROGRAMS["gspmd_" + fn.__name__] = fn
    return fn


class Env:
    """What a program builds with: jax, jnp, P, shard_map and mesh helpers."""

    def __init__(self, jax):
        import numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec
        self.jax, self.jnp, self.np, self.P = jax, jax.numpy, np, PartitionSpec
        self.shard_map = jax.shard_map
        self._mesh, self._named = Mesh, NamedSharding
        self.rng = np.random.default_rng(0)

    def mesh(self, shape, names):
        devices = self.np.array(self.jax.devices()[:int(self.np.prod(shape))]).reshape(shape)
        return self._mesh(devices, names)

    def ns(self, mesh, *spec):
        return self._named(mesh, self.P(*spec))

    def rand(self, *shape):
        return self.rng.standard_normal(shape).astype(self.np.float32)


# Each program returns (jitted function, argument list).
@program
def psum_1d(e):
    m = e.mesh((8,), ("d",))
    f = e.shard_map(lambda a: e.jax.lax.psum(a, "d"), mesh=m, in_specs=e.P("d"), out_specs=e.P())
    return e.jax.jit(f), [e.rand(16, 4)]


@program
def psum_2x4_x(e):
    m = e.mesh((2, 4), ("x", "y"))
    f = e.shard_map(lambda a: e.jax.lax.psum(a, "x"), mesh=m, in_specs=e.P("x", "y"),
                    out_specs=e.P(None, "y"))
    return e.jax.jit(f, in_shardings=e.ns(m, "x", "y")), [e.rand(16, 32)]


@program
def psum_both_axes(e):
    m = e.mesh((4, 2), ("a", "b"))
    f = e.shard_map(lambda a: e.jax.lax.psum(a * 2.0, ("a", "b")), mesh=m,
                    in_specs=e.P("a", "b"), out_specs=e.P())
    return e.jax.jit(f), [e.rand(8, 8)]


@program
def all_gather_tiled(e):
    m = e.mesh((2, 4), ("x", "y"))
    f = e.shard_map(lambda a: e.jax.lax.all_gather(a, "y", axis=1, tiled=True), mesh=m,
                    in_specs=e.P("x", "y"), out_specs=e.P("x"), check_vma=False)
    return e.jax.jit(f), [e.rand(8, 16)]


@program
def all_gather_stacked(e):
    m = e.mesh((8,), ("d",))
    f = e.shard_map(lambda a: e.jax.lax.all_gather(a, "d").sum(0), mesh=m, in_specs=e.P("d"),
                    out_specs=e.P(), check_vma=False)
    return e.jax.jit(f), [e.rand(16, 4)]


@program
def ppermute_ring(e):
    m = e.mesh((8,), ("d",))
    perm = [(i, (i + 1) % 8) for i in range(8)]
    f = e.shard_map(lambda a: e.jax.lax.ppermute(a, "d", perm), mesh=m, in_specs=e.P("d"),
                    out_specs=e.P("d"))
    return e.jax.jit(f), [e.rand(16, 3)]


@program
def ppermute_2d(e):
    m = e.mesh((2, 4), ("x", "y"))
    perm = [(i, (i + 1) % 4) for i in range(4)]
    f = e.shard_map(lambda a: e.jax.lax.ppermute(a, "y", perm) + 1.0, mesh=m,
                    in_specs=e.P("x", "y"), out_specs=e.P("x", "y"))
    return e.jax.jit(f), [e.rand(4, 8)]


@program
def psum_scatter(e):
    m = e.mesh((8,), ("d",))
    f = e.shard_map(lambda a: e.jax.lax.psum_scatter(a, "d", scatter_dimension=0, tiled=True),
                    mesh=m, in_specs=e.P(None, "d"), out_specs=e.P("d"))
    return e.jax.jit(f), [e.rand(16, 8)]


@program
def psum_scatter_2x2x2(e):
    m = e.mesh((2, 2, 2), ("a", "b", "c"))
    f = e.shard_map(lambda a: e.jax.lax.psum_scatter(a, "b", scatter_dimension=1, tiled=True),
                    mesh=m, in_specs=e.P("a", None, "c"), out_specs=e.P("a", "b", "c"))
    return e.jax.jit(f), [e.rand(4, 8, 4)]


@program
def all_to_all(e):
    m = e.mesh((8,), ("d",))
    f = e.shard_map(lambda a: e.jax.lax.all_to_all(a, "d", 0, 1, tiled=True), mesh=m,
                    in_specs=e.P(None, "d"), out_specs=e.P("d"))
    return e.jax.jit(f), [e.rand(16, 16)]


@program
def all_to_all_4x2(e):
    m = e.mesh((4, 2), ("x", "y"))
    f = e.shard_map(lambda a: e.jax.lax.all_to_all(a, "x", 1, 0, tiled=True), mesh=m,
                    in_specs=e.P("x", "y"), out_specs=e.P(None, ("y", "x")))
    return e.jax.jit(f), [e.rand(8, 16)]


@program
def axis_index(e):
    m = e.mesh((2, 4), ("x", "y"))
    def body(a):
        i = e.jax.lax.axis_index("y") * 10 + e.jax.lax.axis_index("x")
        return a + i.astype(e.jnp.float32)
    f = e.shard_map(body, mesh=m, in_specs=e.P("x", "y"), out_specs=e.P("x", "y"))
    return e.jax.jit(f), [e.rand(4, 8)]


@program
def pmax_pmin(e):
    m = e.mesh((2, 2, 2), ("a", "b", "c"))
    def body(a):
        return e.jax.lax.pmax(a, "a") - e.jax.lax.pmin(a, ("b", "c"))
    f = e.shard_map(body, mesh=m, in_specs=e.P("a", ("b", "c")), out_specs=e.P("a", ("b", "c")))
    return e.jax.jit(f), [e.rand(4, 8)]


@program
def matmul_reduce(e):
    m = e.mesh((2, 4), ("x", "y"))
    def body(a, b):
        return e.jax.lax.psum(a @ b, "y")
    f = e.shard_map(body, mesh=m, in_specs=(e.P("x", "y"), e.P("y")), out_specs=e.P("x"))
    return e.jax.jit(f), [e.rand(8, 16), e.rand(16, 4)]


@program
def two_results(e):
    m = e.mesh((2, 4), ("x", "y"))
    def body(u, v):
        return e.jax.lax.psum(u * v, "y"), u + 1.0
    f = e.shard_map(body, mesh=m, in_specs=(e.P("x", "y"), e.P("x", "y")),
                    out_specs=(e.P("x"), e.P("x", "y")))
    return e.jax.jit(f), [e.rand(16, 32), e.rand(16, 32)]


@program
def around_jit_ops(e):
    m = e.mesh((8,), ("d",))
    def f(a, w):
        h = e.jnp.tanh(a @ w)
        g = e.shard_map(lambda x: e.jax.lax.psum(x.sum(0, keepdims=True), "d"), mesh=m,
                        in_specs=e.P("d"), out_specs=e.P())(h)
        return h * g
    return e.jax.jit(f, in_shardings=(e.ns(m, "d"), e.ns(m))), [e.rand(32, 8), e.rand(8, 8)]


@program
def out_sharding_reshard(e):
    m = e.mesh((2, 4), ("x", "y"))
    f = e.shard_map(lambda a: e.jax.lax.psum(a, "x"), mesh=m, in_specs=e.P("x", "y"),
                    out_specs=e.P(None, "y"))
    return e.jax.jit(f, out_shardings=e.ns(m, "y")), [e.rand(16, 32)]


@program
def constraint_open_dim(e):
    m = e.mesh((2, 4), ("x", "y"))
    def f(a):
        a = e.jax.lax.with_sharding_constraint(a, e.ns(m, "x", e.P.UNCONSTRAINED))
        return e.jnp.sin(a) * 2.0
    return e.jax.jit(f, in_shardings=e.ns(m, None, "y")), [e.rand(16, 32)]


@program
def partial_manual_psum(e):
    m = e.mesh((2, 4), ("x", "y"))
    f = e.shard_map(lambda a: e.jax.lax.psum(a, "x"), mesh=m, in_specs=e.P("x"), out_specs=e.P(),
                    axis_names={"x"})
    return e.jax.jit(f), [e.rand(16, 32)]


@program
def partial_manual_auto_split(e):
    m = e.mesh((2, 4), ("x", "y"))
    def f(a):
        g = e.shard_map(lambda b: e.jax.lax.psum(e.jnp.cos(b), "x"), mesh=m, in_specs=e.P("x"),
                        out_specs=e.P(), axis_names={"x"})
        return g(a) * 3.0
    return e.jax.jit(f, in_shardings=e.ns(m, "x", "y")), [e.rand(16, 32)]


@program
def partial_manual_ppermute(e):
    m = e.mesh((4, 2), ("x", "y"))
    perm = [(i, (i + 1) % 4) for i in range(4)]
    f = e.shard_map(lambda a: e.jax.lax.ppermute(a, "x", perm), mesh=m, in_specs=e.P("x"),
                    out_specs=e.P("x"), axis_names={"x"})
    return e.jax.jit(f), [e.rand(8, 6)]


@program
def partial_manual_all_gather(e):
    m = e.mesh((2, 2, 2), ("a", "b", "c"))
    f = e.shard_map(lambda a: e.jax.lax.all_gather(a, "a", tiled=True), mesh=m,
                    in_specs=e.P("a"), out_specs=e.P(), axis_names={"a"}, check_vma=False)
    return e.jax.jit(f), [e.rand(8, 4)]


@program
def nested_shard_map(e):
    m = e.mesh((2, 4), ("x", "y"))
    def outer(b):
        inner = e.shard_map(lambda c: e.jax.lax.psum(c, "y"), in_specs=e.P(None, "y"),
                            out_specs=e.P(), axis_names={"y"})
        return inner(b) * 2.0
    f = e.shard_map(outer, mesh=m, in_specs=e.P("x"), out_specs=e.P("x"), axis_names={"x"})
    return e.jax.jit(f), [e.rand(16, 32)]


@program
def gspmd_partial_manual(e):
    m = e.mesh((2, 4), ("x", "y"))
    f = e.shard_map(lambda a: e.jax.lax.psum(a, "x"), mesh=m, in_specs=e.P("x"), out_specs=e.P(),
                    axis_names={"x"})
    return e.jax.jit(f), [e.rand(16, 32)]


@program
def gspmd_full_manual(e):
    m = e.mesh((2, 4), ("x", "y"))
    f = e.shard_map(lambda a: e.jax.lax.psum(a, "y"), mesh=m, in_specs=e.P("x", "y"),
                    out_specs=e.P("x"))
    return e.jax.jit(f), [e.rand(16, 32)]


@also_on_gspmd
@program
def partial_manual_minor_axis(e):
    m = e.mesh((2, 4), ("x", "y"))
    def f(a):
        g = e.shard_map(lambda b: e.jax.lax.psum(e.jnp.cos(b), "y"), mesh=m,
                        in_specs=e.P(None, "y"), out_specs=e.P(), axis_names={"y"})
        return g(a) * 3.0
    return e.jax.jit(f, in_shardings=e.ns(m, "x", "y")), [e.rand(16, 32)]


@program
def loop_in_body(e):
    m = e.mesh((8,), ("d",))
    def body(a):
        def step(i, x):
            return e.jax.lax.psum(x, "d") * 0.125 + e.jnp.sin(x)
        return e.jax.lax.fori_loop(0, 3, step, a)
    f = e.shard_map(body, mesh=m, in_specs=e.P("d"), out_specs=e.P("d"))
    return e.jax.jit(f), [e.rand(16, 4)]


@program
def integer_psum(e):
    m = e.mesh((2, 4), ("x", "y"))
    f = e.shard_map(lambda a: e.jax.lax.psum(a * 3, ("x", "y")), mesh=m, in_specs=e.P("x", "y"),
                    out_specs=e.P())
    return e.jax.jit(f), [e.np.arange(64, dtype=e.np.int32).reshape(8, 8)]


@program
def partial_manual_two_axes(e):
    m = e.mesh((2, 2, 2), ("a", "b", "c"))
    f = e.shard_map(lambda x: e.jax.lax.psum(x, ("a", "c")), mesh=m, in_specs=e.P(("a", "c")),
                    out_specs=e.P(), axis_names={"a", "c"})
    return e.jax.jit(f), [e.rand(8, 6)]


@program
def partial_manual_psum_scatter(e):
    m = e.mesh((2, 4), ("x", "y"))
    f = e.shard_map(lambda x: e.jax.lax.psum_scatter(x, "y", scatter_dimension=0, tiled=True),
                    mesh=m, in_specs=e.P(), out_specs=e.P("y"), axis_names={"y"})
    return e.jax.jit(f), [e.rand(8, 6)]


@program
def shard_map_then_matmul(e):
    m = e.mesh((4, 2), ("x", "y"))
    def f(a, w):
        h = e.shard_map(lambda b: e.jax.lax.psum(b, "y"), mesh=m, in_specs=e.P("x", "y"),
                        out_specs=e.P("x"))(a)
        return e.jnp.tanh(h @ w)
    return e.jax.jit(f), [e.rand(16, 8), e.rand(4, 8)]


@program
def constraint_in_partial_body(e):
    m = e.mesh((2, 4), ("x", "y"))
    def body(b):
        b = e.jax.lax.with_sharding_constraint(e.jnp.exp(b), e.P(None, "y"))
        return e.jax.lax.psum(b, "x")
    f = e.shard_map(body, mesh=m, in_specs=e.P("x"), out_specs=e.P(), axis_names={"x"})
    return e.jax.jit(f), [e.rand(16, 32)]


@program
def scalar_result(e):
    m = e.mesh((2, 2, 2), ("a", "b", "c"))
    f = e.shard_map(lambda x: e.jax.lax.psum(e.jnp.sum(x), ("a", "b", "c")), mesh=m,
                    in_specs=e.P("a", ("b", "c")), out_specs=e.P())
    return e.jax.jit(f), [e.rand(4, 8)]


@program
def partial_manual_all_to_all(e):
    m = e.mesh((4, 2), ("x", "y"))
    f = e.shard_map(lambda x: e.jax.lax.all_to_all(x, "x", 0, 1, tiled=True), mesh=m,
                    in_specs=e.P(None, "x"), out_specs=e.P("x"), axis_names={"x"})
    return e.jax.jit(f), [e.rand(8, 8)]


def collectives(text):
    counts = collections.Counter()
    for op in COLLECTIVES:
        counts[op] = len(re.findall(r"\s%s(-start)?\(" % re.escape(op), text))
    return counts


def fmt(c):
    return ",".join(f"{k}:{c[k]}" for k in COLLECTIVES if c[k]) or "none"


def compare(expected, got):
    import numpy as np
    if expected.shape != got.shape:
        return f"shape {expected.shape} vs {got.shape}"
    if expected.dtype.kind == "f":
        scale = float(np.max(np.abs(expected))) if expected.size else 0.0
        err = float(np.max(np.abs(expected - got))) if expected.size else 0.0
        return None if err <= 1e-5 * max(scale, 1.0) else f"max abs diff {err}"
    return None if np.array_equal(expected, got) else "elements differ"


def run_xlite(cmd):
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        lines = run.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"rc {run.returncode}"
    return run.stdout, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xlite", default="build/xlite/tools/xlite")
    parser.add_argument("--keep", help="keep the dumps and inputs in this folder")
    parser.add_argument("--mpi", action="store_true",
                        help="also run each program on 8 MPI ranks (mpirun --oversubscribe)")
    parser.add_argument("only", nargs="*", help="programs to run (default: all)")
    opts = parser.parse_args()
    if opts.mpi:  # OpenMPI refuses root unless told (CI containers run as root)
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    work = opts.keep or tempfile.mkdtemp(prefix="shard_map_")
    os.makedirs(work, exist_ok=True)
    dump = os.path.join(work, "dump")
    os.environ["XLA_FLAGS"] = ("--xla_force_host_platform_device_count=8 "
                               f"--xla_dump_to={dump} --xla_dump_hlo_pass_re=spmd-partitioning")
    try:
        import jax
    except ImportError:
        print("jax is not installed: skipped (see the script's docstring)")
        return 0
    import numpy as np
    env = Env(jax)
    totals = collections.Counter()
    print(f"{'program':28} {'result':>7}   collectives xla | xlite")
    for name, build in PROGRAMS.items():
        if opts.only and name not in opts.only:
            continue
        jax.config.update("jax_use_shardy_partitioner", not name.startswith("gspmd_"))
        try:
            fn, args = build(env)
            expected = fn(*args)
        except Exception as error:  # noqa: a program JAX refuses is reported, not fatal
            print(f"{name:28} JAX refused it: {str(error).splitlines()[0]}")
            continue
        expected = [np.asarray(x) for x in (expected if isinstance(expected, tuple) else
                                            (expected,))]
        here = os.path.join(work, name)
        os.makedirs(here, exist_ok=True)
        for n in os.listdir(dump):
            shutil.move(os.path.join(dump, n), os.path.join(here, n))
        names = sorted(os.listdir(here))
        before = [n for n in names if n.endswith(".before_optimizations.txt")
                  and "jit_" in n and not re.search(r"jit_(iota|reshape|_multi_slice|convert)", n)]
        part = [n for n in names if "after_spmd-partitioning" in n]
        if not before:
            print(f"{name:28} XLA dumped no module")
            continue
        before_path = os.path.join(here, before[-1])
        inputs = os.path.join(here, "inputs.npz")
        np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(args)})
        out = os.path.join(here, "xlite.npz")
        cmd = [opts.xlite, "run", before_path, "--inputs", inputs, "--spmd", "--output", out]
        _, err = run_xlite(cmd)
        verdict = "ok"
        if err is None:
            got = np.load(out)
            for i, e_out in enumerate(expected):
                why = compare(e_out, got[f"out{i}"])
                if why:
                    verdict, err = "WRONG", f"out{i}: {why}"
                    break
        else:
            verdict = "FAILED"
        if err is None and opts.mpi:
            mpi_out = os.path.join(here, "mpi.npz")
            _, err = run_xlite(["mpirun", "--oversubscribe", "-np", "8"] + cmd[:-1] +
                               [mpi_out, "--communicator", "mpi"])
            if err is None:
                mpi = np.load(mpi_out)
                if any(not np.array_equal(mpi[k], np.load(out)[k]) for k in mpi.files):
                    err = "MPI run differs from the threads run"
            if err is not None:
                verdict = "MPI"
        xla = collectives(open(os.path.join(here, part[-1])).read()) if part else None
        ours_text, err2 = run_xlite([opts.xlite, "opt", before_path, "--pipeline=spmd"])
        ours = collectives(ours_text) if ours_text is not None else None
        print(f"{name:28} {verdict:>7}   {fmt(xla) if xla is not None else '?'} | "
              f"{fmt(ours) if ours is not None else 'failed: ' + str(err2)}")
        if err:
            print(f"    {err}")
        totals["programs"] += 1
        totals["equal"] += verdict == "ok"
        if xla is not None and ours is not None:
            ours_n, xla_n = sum(ours.values()), sum(xla.values())
            key = "same" if ours == xla else ("more" if ours_n > xla_n else
                                              "fewer" if ours_n < xla_n else "other")
            totals[key] += 1
    print(f"total: {totals['programs']} programs, results equal to JAX on {totals['equal']}; "
          f"collectives by opcode same as XLA on {totals['same']}, more on {totals['more']}, "
          f"fewer on {totals['fewer']}, other kinds on {totals['other']}")
    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
