#!/usr/bin/env python3
"""Agreement of xlite's sharding propagation and SPMD partitioner with XLA's.

For each workload below (a JAX function with input shardings and sharding
constraints on an 8-device CPU mesh), XLA compiles it with GSPMD and dumps the
module before and after its `sharding-propagation` pass and after
`spmd-partitioning`. xlite then runs `sharding-propagation` and the `spmd`
pipeline on XLA's *before* module, and the script compares:

- per instruction that XLA's propagation gave a sharding (annotations not
  counted): the same sharding (compared after
  both modules are printed by `xlite fmt`, so equal meanings print alike),
  a different one, or none from xlite;
- the collectives of the partitioned entry computation, by opcode;
- the numbers: `xlite run --spmd` (partitioned, 8 devices on threads) against
  the unpartitioned `xlite run` on the same random inputs.

It needs jax (e.g. `python3 -m venv build/jax-venv && build/jax-venv/bin/pip
install jax`) and runs under that interpreter:

  build/jax-venv/bin/python scripts/xla_sharding_agreement.py [--xlite build/xlite/tools/xlite]
      [--keep DIR] [--verbose]

It only measures (no part of `make test`); the README quotes its figures.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

WORKLOADS = {}


def workload(fn):
    WORKLOADS[fn.__name__] = fn
    return fn


def setup_jax(dump_dir):
    os.environ["XLA_FLAGS"] = (
        "--xla_force_host_platform_device_count=8 "
        f"--xla_dump_to={dump_dir} "
        "--xla_dump_hlo_pass_re=sharding-propagation|spmd-partitioning")
    import jax  # noqa: imported after XLA_FLAGS on purpose
    jax.config.update("jax_use_shardy_partitioner", False)
    return jax


# Each workload gets (jax, jnp, mesh helpers) and returns (jitted fn, args).
def _mesh(jax, shape, names):
    import numpy as np
    from jax.sharding import Mesh
    return Mesh(np.array(jax.devices()[:int(np.prod(shape))]).reshape(shape), names)


def _ns(mesh, *spec):
    from jax.sharding import NamedSharding, PartitionSpec as P
    return NamedSharding(mesh, P(*spec))


@workload
def mlp_data_parallel(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x, w1, w2):
        return jnp.maximum(x @ w1, 0) @ w2
    args = (jnp.ones((64, 32)), jnp.ones((32, 128)), jnp.ones((128, 16)))
    return jax.jit(f, in_shardings=(_ns(m, "d", None), _ns(m), _ns(m))), args


@workload
def mlp_megatron(jax, jnp):
    m = _mesh(jax, (8,), ("t",))
    def f(x, w1, w2):
        return jax.nn.gelu(x @ w1) @ w2
    args = (jnp.ones((16, 64)), jnp.ones((64, 256)), jnp.ones((256, 64)))
    return jax.jit(f, in_shardings=(_ns(m), _ns(m, None, "t"), _ns(m, "t", None))), args


@workload
def mlp_2d_mesh(jax, jnp):
    m = _mesh(jax, (2, 4), ("x", "y"))
    def f(x, w1, w2):
        return jnp.tanh(x @ w1) @ w2
    args = (jnp.ones((32, 64)), jnp.ones((64, 128)), jnp.ones((128, 64)))
    return jax.jit(f, in_shardings=(_ns(m, "x", None), _ns(m, None, "y"),
                                    _ns(m, "y", None))), args


@workload
def attention_heads(jax, jnp):
    m = _mesh(jax, (2, 4), ("b", "h"))
    def f(q, k, v):
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / 8.0
        p = jax.nn.softmax(s, axis=-1)
        return jnp.einsum("bhqk,bkhd->bqhd", p, v)
    shape = (4, 16, 8, 32)
    sh = _ns(m, "b", None, "h", None)
    args = tuple(jnp.ones(shape) for _ in range(3))
    return jax.jit(f, in_shardings=(sh, sh, sh)), args


@workload
def layernorm_rows(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x, g, b):
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        return (x - mu) * jax.lax.rsqrt(var + 1e-5) * g + b
    args = (jnp.ones((64, 256)), jnp.ones((256,)), jnp.ones((256,)))
    return jax.jit(f, in_shardings=(_ns(m, "d", None), _ns(m), _ns(m))), args


@workload
def reshape_transpose(jax, jnp):
    m = _mesh(jax, (2, 4), ("x", "y"))
    def f(x):
        y = x.reshape(8, 16 * 32)
        return (jnp.exp(y).T * 2.0).reshape(16, 32, 8)
    return jax.jit(f, in_shardings=(_ns(m, "x", "y", None),)), (jnp.ones((8, 16, 32)),)


@workload
def embedding_lookup(jax, jnp):
    m = _mesh(jax, (2, 4), ("x", "y"))
    def f(table, ids):
        return jnp.take(table, ids, axis=0).sum(axis=1)
    args = (jnp.ones((1024, 64)), jnp.zeros((16, 8), dtype=jnp.int32))
    return jax.jit(f, in_shardings=(_ns(m, None, "y"), _ns(m, "x", None))), args


@workload
def sharding_constraint(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(a, b):
        c = a @ b
        c = jax.lax.with_sharding_constraint(c, _ns(m, None, "d"))
        return jnp.sin(c) + 1.0
    args = (jnp.ones((32, 64)), jnp.ones((64, 64)))
    return jax.jit(f, in_shardings=(_ns(m, "d", None), _ns(m))), args


@workload
def conv_batch(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x, w):
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.maximum(y, 0.0)
    args = (jnp.ones((8, 16, 16, 8)), jnp.ones((3, 3, 8, 16)))
    return jax.jit(f, in_shardings=(_ns(m, "d", None, None, None), _ns(m))), args


@workload
def fori_loop_carry(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x, w):
        return jax.lax.fori_loop(0, 4, lambda i, h: jnp.tanh(h @ w), x)
    args = (jnp.ones((64, 32)), jnp.ones((32, 32)))
    return jax.jit(f, in_shardings=(_ns(m, "d", None), _ns(m))), args


@workload
def reduce_sharded_dims(jax, jnp):
    m = _mesh(jax, (2, 4), ("x", "y"))
    def f(x):
        return x.sum(axis=0), x.max(axis=1)
    return jax.jit(f, in_shardings=(_ns(m, "x", "y"),)), (jnp.ones((32, 64)),)


@workload
def concat_pad_slice(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(a, b):
        c = jnp.concatenate([a, b], axis=0)
        return jnp.pad(c, ((1, 1), (0, 0)))[2:10] * 3.0
    args = (jnp.ones((16, 64)), jnp.ones((8, 64)))
    return jax.jit(f, in_shardings=(_ns(m, None, "d"), _ns(m, None, "d"))), args


@workload
def batched_einsum(jax, jnp):
    m = _mesh(jax, (2, 4), ("b", "k"))
    def f(a, b):
        return jnp.einsum("bij,bjk->bik", a, b)
    args = (jnp.ones((4, 16, 32)), jnp.ones((4, 32, 64)))
    return jax.jit(f, in_shardings=(_ns(m, "b", None, "k"), _ns(m, "b", "k", None))), args


@workload
def argmax_rows(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x):
        return jnp.argmax(x, axis=1)
    return jax.jit(f, in_shardings=(_ns(m, "d", None),)), (jnp.ones((64, 128)),)


@workload
def scatter_add(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x, idx, upd):
        return x.at[idx].add(upd)
    args = (jnp.ones((64, 32)), jnp.zeros((16,), dtype=jnp.int32), jnp.ones((16, 32)))
    return jax.jit(f, in_shardings=(_ns(m, None, "d"), _ns(m), _ns(m, None, "d"))), args


@workload
def sort_rows(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x):
        return jnp.sort(x, axis=1)
    return jax.jit(f, in_shardings=(_ns(m, "d", None),)), (jnp.ones((64, 128)),)


@workload
def cumsum_window(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x):
        return jnp.cumsum(x, axis=1)
    return jax.jit(f, in_shardings=(_ns(m, "d", None),)), (jnp.ones((64, 32)),)


@workload
def mesh_3d_partial(jax, jnp):
    m = _mesh(jax, (2, 2, 2), ("a", "b", "c"))
    def f(x, w):
        return jax.nn.relu(x @ w).sum(axis=0)
    args = (jnp.ones((32, 64)), jnp.ones((64, 32)))
    return jax.jit(f, in_shardings=(_ns(m, "a", "b"), _ns(m, "b", None))), args


@workload
def transformer_dp_tp(jax, jnp):
    m = _mesh(jax, (2, 4), ("dp", "tp"))
    def f(x, wq, wk, wv, wo, w1, w2):
        q, k, v = x @ wq, x @ wk, x @ wv
        b, s, _ = x.shape
        q = q.reshape(b, s, 4, 16)
        k = k.reshape(b, s, 4, 16)
        v = v.reshape(b, s, 4, 16)
        p = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k), axis=-1)
        a = jnp.einsum("bhqk,bkhd->bqhd", p, v).reshape(b, s, 64) @ wo
        h = x + a
        return h + jax.nn.relu(h @ w1) @ w2
    col, row = _ns(m, None, "tp"), _ns(m, "tp", None)
    args = (jnp.ones((4, 16, 64)),) + tuple(jnp.ones((64, 64)) for _ in range(4)) + (
        jnp.ones((64, 128)), jnp.ones((128, 64)))
    return jax.jit(f, in_shardings=(_ns(m, "dp", None, None), col, col, col, row, col, row)), args


@workload
def reshape_merge_split(jax, jnp):
    m = _mesh(jax, (2, 4), ("x", "y"))
    def f(a):
        flat = jnp.cos(a.reshape(512))
        return flat.reshape(4, 128) + 1.0
    return jax.jit(f, in_shardings=(_ns(m, "x", "y"),)), (jnp.ones((16, 32)),)


@workload
def scan_stacked_layers(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x, ws):
        def layer(h, w):
            return jnp.tanh(h @ w), None
        return jax.lax.scan(layer, x, ws)[0]
    args = (jnp.ones((64, 32)), jnp.ones((3, 32, 32)))
    return jax.jit(f, in_shardings=(_ns(m, "d", None), _ns(m))), args


@workload
def dynamic_update_slice(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(buf, upd, i):
        return jax.lax.dynamic_update_slice(buf, upd, (i, 0)) * 2.0
    args = (jnp.ones((64, 32)), jnp.ones((8, 32)), jnp.int32(3))
    return jax.jit(f, in_shardings=(_ns(m, None, "d"), _ns(m, None, "d"), _ns(m))), args


@workload
def outer_product_2d(jax, jnp):
    m = _mesh(jax, (2, 4), ("x", "y"))
    def f(a, b):
        return jnp.exp(a[:, None] * b[None, :])
    args = (jnp.ones((32,)), jnp.ones((64,)))
    return jax.jit(f, in_shardings=(_ns(m, "x"), _ns(m, "y"))), args


@workload
def contracting_sharded(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(a, b):
        return jax.nn.sigmoid(a @ b)
    args = (jnp.ones((16, 256)), jnp.ones((256, 32)))
    return jax.jit(f, in_shardings=(_ns(m, None, "d"), _ns(m, "d", None))), args


@workload
def conv_out_channels(jax, jnp):
    m = _mesh(jax, (2, 4), ("b", "o"))
    def f(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "VALID",
                                            dimension_numbers=("NCHW", "OIHW", "NCHW"))
    args = (jnp.ones((4, 8, 12, 12)), jnp.ones((16, 8, 3, 3)))
    return jax.jit(f, in_shardings=(_ns(m, "b", None, None, None),
                                    _ns(m, "o", None, None, None))), args


@workload
def cross_entropy_vocab(jax, jnp):
    m = _mesh(jax, (2, 4), ("b", "v"))
    def f(logits, labels):
        logp = jax.nn.log_softmax(logits, axis=-1)
        onehot = jax.nn.one_hot(labels, logits.shape[-1])
        return -(logp * onehot).sum(axis=-1).mean()
    args = (jnp.ones((16, 512)), jnp.zeros((16,), dtype=jnp.int32))
    return jax.jit(f, in_shardings=(_ns(m, "b", "v"), _ns(m, "b"))), args


@workload
def where_broadcast(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x, t):
        return jnp.where(x > t, x, 0.5 * x)
    args = (jnp.ones((64, 16)), jnp.float32(0.1))
    return jax.jit(f, in_shardings=(_ns(m, "d", None), _ns(m))), args


@workload
def flip_transpose_3d(jax, jnp):
    m = _mesh(jax, (2, 4), ("x", "y"))
    def f(a):
        return jnp.flip(jnp.transpose(a, (2, 0, 1)), axis=1) - 1.0
    return jax.jit(f, in_shardings=(_ns(m, "x", None, "y"),)), (jnp.ones((8, 6, 16)),)


@workload
def top_k_rows(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x):
        return jax.lax.top_k(x, 4)[0]
    return jax.jit(f, in_shardings=(_ns(m, "d", None),)), (jnp.ones((64, 128)),)


@workload
def take_along_axis(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x, idx):
        return jnp.take_along_axis(x, idx, axis=1)
    args = (jnp.ones((64, 32)), jnp.zeros((64, 4), dtype=jnp.int32))
    return jax.jit(f, in_shardings=(_ns(m, "d", None), _ns(m, "d", None))), args


@workload
def output_constraint_only(jax, jnp):
    m = _mesh(jax, (2, 4), ("x", "y"))
    def f(a, b):
        c = jnp.tanh(a) @ b
        return jax.lax.with_sharding_constraint(c, _ns(m, "x", "y"))
    args = (jnp.ones((32, 16)), jnp.ones((16, 64)))
    return jax.jit(f), args


@workload
def pad_sharded_dim(jax, jnp):
    m = _mesh(jax, (8,), ("d",))
    def f(x):
        return jnp.pad(x, ((0, 0), (2, 6))) + 1.0
    return jax.jit(f, in_shardings=(_ns(m, None, "d"),)), (jnp.ones((8, 64)),)


# --------------------------------------------------------------- comparing

INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*(.*)$")
OPCODE = re.compile(r"\]\S*\s+([\w\-]+)\(|^\S+\s+([\w\-]+)\(")
COLLECTIVES = ("all-gather", "all-reduce", "reduce-scatter", "all-to-all", "collective-permute")


def sharding_of(rest):
    """The text of `sharding={...}` in an instruction's line, braces matched."""
    at = rest.find("sharding={")
    if at < 0:
        return None
    depth, i = 0, at + len("sharding=")
    for j in range(i, len(rest)):
        depth += rest[j] == "{"
        depth -= rest[j] == "}"
        if depth == 0:
            return rest[i:j + 1]
    return None


def shardings(text):
    """{instruction name: sharding text} over every computation."""
    out = {}
    for line in text.splitlines():
        m = INSTRUCTION.match(line)
        if m:
            s = sharding_of(m.group(2))
            if s is not None:
                out[m.group(1)] = s
    return out


def entry_collectives(text):
    counts = collections.Counter()
    in_entry = False
    for line in text.splitlines():
        if line.startswith("ENTRY"):
            in_entry = True
        elif in_entry and line.startswith("}"):
            in_entry = False
        elif in_entry:
            m = INSTRUCTION.match(line)
            if not m:
                continue
            for op in COLLECTIVES:
                if re.search(r"\s%s(-start)?\(" % re.escape(op), " " + m.group(2)):
                    counts[op] += 1
    return counts


def xlite(xlite_bin, args, text):
    run = subprocess.run([xlite_bin] + args + ["-"], input=text, capture_output=True,
                         text=True, timeout=300)
    if run.returncode != 0:
        return None, run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "failed"
    return run.stdout, None


def same_numbers(xlite_bin, text, work):
    """'ok', or what differs between the partitioned and the plain run."""
    import numpy as np
    path = os.path.join(work, "module.hlo")
    with open(path, "w") as f:
        f.write(text)
    outs = []
    for extra, name in (([], "plain.npz"), (["--spmd"], "spmd.npz")):
        out = os.path.join(work, name)
        run = subprocess.run([xlite_bin, "run", path, "--random", "0", "--output", out] + extra,
                             capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            lines = run.stderr.strip().splitlines()
            return f"{' '.join(extra) or 'plain'} run failed: {lines[-1] if lines else run.returncode}"
        outs.append(np.load(out))
    for key in outs[1].files:  # the global results; the plain run has every device too
        a, b = outs[0][key], outs[1][key]
        if a.shape != b.shape:
            return f"{key}: shape {a.shape} vs {b.shape}"
        if a.dtype.kind == "f":
            # Sums split over devices round differently: relative to the
            # result's magnitude.
            scale = float(np.nanmax(np.abs(a))) if a.size else 0.0
            err = float(np.nanmax(np.abs(a - b))) if a.size else 0.0
            if err > 1e-5 * max(scale, 1.0):
                return f"{key}: max abs diff {err} at magnitude {scale}"
        elif not np.array_equal(a, b):
            return f"{key}: {np.sum(a != b)} elements differ"
    return "ok"


def find_dump(dump_dir, module, part):
    names = sorted(n for n in os.listdir(dump_dir)
                   if module in n and part in n and n.endswith(".txt"))
    return os.path.join(dump_dir, names[0]) if names else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xlite", default="build/xlite/tools/xlite")
    parser.add_argument("--keep", help="keep XLA's dumps in this folder")
    parser.add_argument("--verbose", action="store_true", help="list every disagreement")
    parser.add_argument("only", nargs="*", help="workloads to run (default: all)")
    opts = parser.parse_args()
    dump_dir = opts.keep or tempfile.mkdtemp(prefix="xla_sharding_")
    os.makedirs(dump_dir, exist_ok=True)
    jax = setup_jax(dump_dir)
    import jax.numpy as jnp

    totals = collections.Counter()
    print(f"{'workload':22} {'xla':>4} {'same':>5} {'diff':>5} {'none':>5} {'numbers':>7}   "
          "collectives xla | xlite")
    for name, build in WORKLOADS.items():
        if opts.only and name not in opts.only:
            continue
        fn, args = build(jax, jnp)
        fn.lower(*args).compile()
        module = "jit_f"  # every workload's function is called f
        before_path = find_dump(dump_dir, module, ".before_sharding-propagation.")
        after_path = find_dump(dump_dir, module, ".after_sharding-propagation.")
        part_path = find_dump(dump_dir, module, ".after_spmd-partitioning.")
        if not before_path or not after_path:
            print(f"{name:22} XLA dumped no sharding-propagation modules")
            continue
        before = open(before_path).read()
        xla_part = open(part_path).read() if part_path else ""
        xla_after, err = xlite(opts.xlite, ["fmt"], open(after_path).read())
        ours, err2 = xlite(opts.xlite, ["opt", "--passes=sharding-propagation"], before)
        ours_part, err3 = xlite(opts.xlite, ["opt", "--passes=spmd"], before)
        # Files of this workload are moved aside so the next one finds its own.
        done = os.path.join(dump_dir, name)
        os.makedirs(done, exist_ok=True)
        for n in os.listdir(dump_dir):
            if n.startswith("module_"):
                shutil.move(os.path.join(dump_dir, n), os.path.join(done, n))
        if xla_after is None or ours is None:
            print(f"{name:22} xlite failed: {err or err2}")
            totals["failed"] += 1
            continue
        # Only what propagation decided counts, not the annotations it kept.
        annotated = shardings(before)
        theirs = {k: v for k, v in shardings(xla_after).items() if k not in annotated}
        mine = shardings(ours)
        same = [k for k, v in theirs.items() if mine.get(k) == v]
        diff = [k for k, v in theirs.items() if k in mine and mine[k] != v]
        none = [k for k in theirs if k not in mine]
        xla_coll = entry_collectives(xla_part)
        our_coll = entry_collectives(ours_part) if ours_part else None
        fmt = lambda c: ",".join(f"{k}:{c[k]}" for k in COLLECTIVES if c[k]) or "none"
        numbers = same_numbers(opts.xlite, before, done)
        print(f"{name:22} {len(theirs):4} {len(same):5} {len(diff):5} {len(none):5} "
              f"{'ok' if numbers == 'ok' else 'WRONG':>7}   "
              f"{fmt(xla_coll)} | {fmt(our_coll) if our_coll is not None else 'failed: ' + str(err3)}")
        if numbers != "ok":
            print(f"    numbers: {numbers}")
        totals["same_numbers"] += numbers == "ok"
        if opts.verbose:
            for k in diff:
                print(f"    {k}: xla {theirs[k]}  xlite {mine[k]}")
            for k in none:
                print(f"    {k}: xla {theirs[k]}  xlite none")
        totals["xla"] += len(theirs)
        totals["same"] += len(same)
        totals["diff"] += len(diff)
        totals["none"] += len(none)
        totals["workloads"] += 1
        totals["same_collectives"] += our_coll is not None and our_coll == xla_coll
    if totals["xla"]:
        print(f"total: {totals['same']}/{totals['xla']} instructions with XLA's sharding "
              f"({100.0 * totals['same'] / totals['xla']:.1f}%), {totals['diff']} different, "
              f"{totals['none']} unsharded; same collective counts on "
              f"{totals['same_collectives']}/{totals['workloads']} workloads; partitioned run equal "
              f"to the plain run on {totals['same_numbers']}/{totals['workloads']}")
    if not opts.keep:
        shutil.rmtree(dump_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
