#!/usr/bin/env python3
"""`xlite autoshard` against hand-written plans on a family of JAX programs (issue 31).

Five unsharded programs are written with JAX 0.10 (8 CPU devices): an MLP and a
transformer block training step with Adam state, a conv net training step, an
embedding + attention model and an MoE layer. Each is lowered unsharded to HLO
text, and again with `in_shardings`/`out_shardings` on a jax Mesh for three hand
plans: data-parallel (the batch over every device, the rest replicated),
Megatron (the batch over every axis but the last, each weight split on its
model dim over the last axis; on the 1-D mesh of 8 that is pure tensor
parallelism, the batch replicated) and FSDP (the batch over every device, each
weight and its Adam state split on its largest evenly divisible dim over every
device). For meshes 8, 2x4 and 2x2x2 the script then

- runs `xlite autoshard --device h100` on the unsharded module;
- predicts the step of the autoshard module and of each hand plan with
  `xlite sched --spmd --device h100 --json` (`step_seconds`), and its memory
  per device (`peak_bytes` of the per-partition schedule);
- runs the autoshard module with `xlite run --spmd` (threads) and the unsharded
  one with `xlite run`, both on `--random 1`, and compares the outputs (f32
  within 1e-4 of the output's magnitude: the reduction order differs);
- where `--memory-limit` is given for a case (LIMITED below), it is passed to
  autoshard and checked against the plans' peaks: there data-parallel does
  not fit and autoshard must.

Needs jax (`/work/jax-venv`); without it the script says so and exits 0:

  /work/jax-venv/bin/python scripts/autoshard_family.py [--xlite build/xlite/tools/xlite]
      [--keep DIR] [--quick] [--write-hlo PROGRAM MESH PLAN FILE] [programs...]

`--quick` runs the MLP on the mesh 2x4 alone (the ctest entry). Exits 1 when a
row fails (autoshard worse than the best hand plan, over the limit, or not
equal to the unsharded run). docs/autoshard.md quotes its table.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

MESHES = {"8": ((8,), ("d",)), "2x4": ((2, 4), ("data", "model")),
          "2x2x2": ((2, 2, 2), ("x", "y", "z"))}
AUTOSHARD_MESH = {"8": "8", "2x4": "2x4:data,model", "2x2x2": "2x2x2"}
PLANS = ("dp", "megatron", "fsdp")
PROGRAMS = {}
# (program, mesh) -> per-device byte limit on the schedule's peak under which data-parallel does
# not fit; autoshard gets it as --memory-limit (which holds every buffer live at its peak).
LIMITED = {("mlp_adam", "2x4"): 3 << 20}
# autoshard's predicted step may exceed the best hand plan's by this fraction.
TOLERANCE = 0.10


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


# An argument's or result's role, which the hand plans shard by:
# BATCH: dim 0 is the batch; SCALAR: replicated; an int: a weight (or its Adam
# state) whose Megatron model dim is that int; None: a weight Megatron replicates.
BATCH, SCALAR = "batch", "scalar"


class Env:
    def __init__(self, jax):
        import numpy as np
        self.jax, self.jnp, self.np = jax, jax.numpy, np
        self.rng = np.random.default_rng(0)

    def rand(self, *shape, scale=0.1):
        return (self.rng.standard_normal(shape) * scale).astype(self.np.float32)


def adam_step(e, loss_fn, params, state, batch):
    """One Adam step: returns (new params, new m, new v, loss); step count fixed at 1."""
    jnp = e.jnp
    loss, grads = e.jax.value_and_grad(loss_fn)(params, *batch)
    m, v = state
    m = [0.9 * mi + 0.1 * g for mi, g in zip(m, grads)]
    v = [0.999 * vi + 0.001 * g * g for vi, g in zip(v, grads)]
    new = [p - 1e-3 * (mi / 0.1) / (jnp.sqrt(vi / 0.001) + 1e-8)
           for p, mi, vi in zip(params, m, v)]
    return new, m, v, loss


def training_step(e, loss_fn, params, dims, batch):
    """A program taking (params..., m..., v..., batch...) and returning the same state and loss."""
    n = len(params)

    def step(*args):
        new, m, v, loss = adam_step(e, loss_fn, list(args[:n]), (args[n:2 * n], args[2 * n:3 * n]),
                                    args[3 * n:])
        return (*new, *m, *v, loss)

    zeros = [e.np.zeros_like(p) for p in params]
    args = list(params) + zeros + zeros + list(batch)
    roles = list(dims) * 3 + [BATCH] * len(batch)
    return step, args, roles, list(dims) * 3 + [SCALAR]


def layer_norm(e, x, scale):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * e.jax.lax.rsqrt(var + 1e-5) * scale


def attention(e, x, wq, wk, wv, wo, heads):
    jnp = e.jnp
    b, s, d = x.shape

    def split(t):
        return t.reshape(b, s, heads, d // heads)

    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    att = e.jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) / (d // heads) ** 0.5, axis=-1)
    return jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, s, d) @ wo


@program
def mlp_adam(e):
    d, h, b = 256, 1024, 128
    params = [e.rand(d, h), e.rand(h), e.rand(h, d), e.rand(d)]

    def loss(p, x, y):
        hid = e.jax.nn.relu(x @ p[0] + p[1])
        return ((hid @ p[2] + p[3] - y) ** 2).mean()

    return training_step(e, loss, params, [1, 0, 0, None], [e.rand(b, d), e.rand(b, d)])


@program
def transformer_adam(e):
    b, s, d, f, heads = 16, 32, 128, 512, 4
    params = [e.rand(d) + 1, e.rand(d, d), e.rand(d, d), e.rand(d, d), e.rand(d, d),
              e.rand(d) + 1, e.rand(d, f), e.rand(f, d)]

    def loss(p, x, y):
        h = x + attention(e, layer_norm(e, x, p[0]), p[1], p[2], p[3], p[4], heads)
        h = h + e.jax.nn.gelu(layer_norm(e, h, p[5]) @ p[6]) @ p[7]
        return ((h - y) ** 2).mean()

    return training_step(e, loss, params, [None, 1, 1, 1, 0, None, 1, 0],
                         [e.rand(b, s, d), e.rand(b, s, d)])


@program
def convnet_adam(e):
    b, hw, c0, c1, c2, classes = 16, 16, 8, 32, 64, 10
    params = [e.rand(3, 3, c0, c1), e.rand(3, 3, c1, c2), e.rand(c2, classes)]
    dn = ("NHWC", "HWIO", "NHWC")

    def loss(p, x, labels):
        h = e.jax.nn.relu(e.jax.lax.conv_general_dilated(x, p[0], (1, 1), "SAME",
                                                         dimension_numbers=dn))
        h = e.jax.nn.relu(e.jax.lax.conv_general_dilated(h, p[1], (1, 1), "SAME",
                                                         dimension_numbers=dn))
        logits = h.mean((1, 2)) @ p[2]
        return -(e.jax.nn.log_softmax(logits) * labels).sum(-1).mean()

    labels = e.np.eye(classes, dtype=e.np.float32)[e.rng.integers(0, classes, b)]
    return training_step(e, loss, params, [3, 2, None], [e.rand(b, hw, hw, c0), labels])


@program
def embed_attention(e):
    b, s, vocab, d, heads = 16, 32, 1024, 128, 4
    table, wq, wk, wv, wo = e.rand(vocab, d), e.rand(d, d), e.rand(d, d), e.rand(d, d), e.rand(d, d)

    def model(tokens, table, wq, wk, wv, wo):
        x = table[tokens]
        h = x + attention(e, x, wq, wk, wv, wo, heads)
        return h @ table.T

    tokens = e.rng.integers(0, vocab, (b, s)).astype(e.np.int32)
    return model, [tokens, table, wq, wk, wv, wo], [BATCH, 0, 1, 1, 1, 0], [BATCH]


@program
def moe_layer(e):
    t, d, f, experts, capacity = 256, 128, 256, 8, 64
    jnp = e.jnp

    def model(x, router, w1, w2):
        gates = e.jax.nn.softmax(x @ router, axis=-1)
        choice = e.jax.nn.one_hot(jnp.argmax(gates, -1), experts, dtype=x.dtype)
        position = (jnp.cumsum(choice, 0) - 1) * choice
        dispatch = choice[:, :, None] * e.jax.nn.one_hot(position, capacity, dtype=x.dtype)
        combine = dispatch * (gates * choice).sum(-1)[:, None, None]
        inputs = jnp.einsum("tec,td->ecd", dispatch, x)
        hidden = e.jax.nn.relu(jnp.einsum("ecd,edf->ecf", inputs, w1))
        return jnp.einsum("tec,ecd->td", combine, jnp.einsum("ecf,efd->ecd", hidden, w2))

    args = [e.rand(t, d), e.rand(d, experts), e.rand(experts, d, f), e.rand(experts, f, d)]
    return model, args, [BATCH, None, 2, 1], [BATCH]


def spec(e, role, shape, plan, axes, devices):
    """The PartitionSpec of one argument or result under a hand plan."""
    from jax.sharding import PartitionSpec as P
    if role == SCALAR or not shape:
        return P()
    if role == BATCH:
        batch_axes = axes[:-1] if plan == "megatron" else axes
        return P(batch_axes or None) if shape[0] % max(1, _size(e, batch_axes)) == 0 else P()
    if plan == "dp":
        return P()
    if plan == "megatron":
        if role is None or shape[role] % _size(e, axes[-1:]) != 0:
            return P()
        return P(*([None] * role + [axes[-1]]))
    even = [i for i in range(len(shape)) if shape[i] % devices == 0]
    if not even:
        return P()
    dim = max(even, key=lambda i: shape[i])
    return P(*([None] * dim + [axes]))


def _size(e, axes):
    return int(e.np.prod([MESH_SIZES[a] for a in axes])) if axes else 1


MESH_SIZES = {name: size for sizes, names in MESHES.values() for name, size in zip(names, sizes)}


def lower(e, fn, args, roles, out_roles, plan=None, mesh=None):
    """HLO text of fn, unsharded (plan None) or under a hand plan on `mesh`."""
    jax = e.jax
    if plan is None:
        # JAX compiles a jit without out_shardings with its outputs' shardings left to
        # propagation; the HLO text does not say so, and without it autoshard gathers every output.
        text = jax.jit(fn).lower(*args).as_text(dialect="hlo")
        return re.sub(r"^HloModule (\S+), ",
                      r"HloModule \1, allow_spmd_sharding_propagation_to_output={true}, ",
                      text, count=1)
    from jax.sharding import Mesh, NamedSharding
    sizes, names = MESHES[mesh]
    devices = int(e.np.prod(sizes))
    m = Mesh(e.np.array(jax.devices()[:devices]).reshape(sizes), names)
    outs = jax.eval_shape(fn, *args)
    outs = outs if isinstance(outs, (tuple, list)) else [outs]
    ins = [NamedSharding(m, spec(e, r, a.shape, plan, names, devices)) for a, r in zip(args, roles)]
    out = [NamedSharding(m, spec(e, r, o.shape, plan, names, devices))
           for o, r in zip(outs, out_roles)]
    text = jax.jit(fn, in_shardings=ins, out_shardings=tuple(out) if len(out) > 1 else out[0]) \
        .lower(*args).as_text(dialect="hlo")
    # The HLO text JAX prints has no compile options; num_partitions is one.
    return re.sub(r"^HloModule (\S+), ", rf"HloModule \1, num_partitions={devices}, ", text,
                  count=1)


def xlite(binary, *args):
    run = subprocess.run([binary, *args], capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        lines = (run.stderr or run.stdout).strip().splitlines()
        raise RuntimeError(f"xlite {args[0]}: {lines[-1] if lines else run.returncode}")
    return run.stdout


def sched(binary, path):
    """(predicted step seconds, peak bytes per device) of the partitioned module."""
    report = json.loads(xlite(binary, "sched", path, "--spmd", "--device", "h100", "--json"))
    return report["step_seconds"], report["peak_bytes"]


def equal(np, ref_path, got_path):
    ref, got = np.load(ref_path), np.load(got_path)
    for key in ref.files:
        a, b = ref[key], got[key]
        if a.shape != b.shape:
            return False
        scale = max(float(np.max(np.abs(a))) if a.size else 0.0, 1.0)
        if a.size and float(np.max(np.abs(a.astype(np.float64) - b))) > 1e-4 * scale:
            return False
    return True


def fmt_us(seconds):
    return "-" if seconds is None else f"{seconds * 1e6:.1f}"


def run_case(e, binary, work, name, built, mesh):
    """One row: the autoshard plan against the hand plans of `name` on `mesh`."""
    fn, args, roles, out_roles = built
    here = os.path.join(work, name)
    base = os.path.join(here, "unsharded.hlo")
    ref = os.path.join(here, "unsharded.npz")
    if not os.path.exists(ref):
        xlite(binary, "run", base, "--random", "1", "--output", ref)
    tag = f"{name}.{mesh}"
    limit = LIMITED.get((name, mesh))
    auto = os.path.join(here, f"auto.{mesh}.hlo")
    row = {"program": name, "mesh": mesh, "limit": limit}
    flags = ["--memory-limit", str(limit)] if limit else []
    plan = json.loads(xlite(binary, "autoshard", base, "--mesh", AUTOSHARD_MESH[mesh],
                            "--device", "h100", "--json", "-o", auto, *flags))
    row["model"], row["solver"] = plan["plan"]["seconds"], plan["solver"].split(" (")[0]
    row["model_peak"] = plan["plan"]["peak_bytes_per_device"]
    row["auto"], row["auto_peak"] = sched(binary, auto)
    for plan in PLANS:
        path = os.path.join(here, f"{plan}.{mesh}.hlo")
        with open(path, "w") as out:
            out.write(lower(e, fn, args, roles, out_roles, plan, mesh))
        try:
            row[plan], row[plan + "_peak"] = sched(binary, path)
        except RuntimeError as error:
            print(f"  {tag} {plan}: {error}")
            row[plan], row[plan + "_peak"] = None, None
    fitting = [p for p in PLANS if row[p] is not None and (not limit or row[p + "_peak"] <= limit)]
    row["best"] = min(fitting, key=lambda p: row[p]) if fitting else None
    row["fits"] = not limit or row["auto_peak"] <= limit
    got = os.path.join(here, f"auto.{mesh}.npz")
    xlite(binary, "run", auto, "--spmd", "--random", "1", "--output", got)
    row["equal"] = equal(e.np, ref, got)
    return row


def print_table(rows):
    print(f"{'program':17} {'mesh':6} {'limit':>8} {'model':>7} {'autoshard':>10} {'DP':>9} "
          f"{'Megatron':>9} {'FSDP':>9} {'best hand':>10} {'ratio':>6} {'fits':>5} {'equal':>5}"
          f"   (peak MiB: auto DP Megatron FSDP)")
    for r in rows:
        best = r[r["best"]] if r["best"] else None
        ratio = f"{r['auto'] / best:.2f}" if best else "-"
        limit = f"{r['limit'] / 2**20:.1f}M" if r["limit"] else "-"
        peaks = " ".join(f"{(r[k + '_peak'] or 0) / 2**20:.2f}" for k in ("auto",) + PLANS)
        print(f"{r['program']:17} {r['mesh']:6} {limit:>8} {fmt_us(r['model']):>7} "
              f"{fmt_us(r['auto']):>10} "
              f"{fmt_us(r['dp']):>9} {fmt_us(r['megatron']):>9} {fmt_us(r['fsdp']):>9} "
              f"{(r['best'] or '-'):>10} {ratio:>6} {'yes' if r['fits'] else 'NO':>5} "
              f"{'yes' if r['equal'] else 'NO':>5}   ({peaks})")
    print("us per step on h100: model = autoshard's own prediction (--json plan seconds), the"
          " rest `xlite sched --spmd`; ratio = autoshard / best hand plan that fits")
    heuristic = [f"{r['program']} {r['mesh']}" for r in rows if r["solver"] == "heuristic"]
    if heuristic:
        print("heuristic plan (ILP over 300,000 variables): " + ", ".join(heuristic))
    for r in rows:
        if r["limit"]:
            print(f"{r['program']} {r['mesh']}: peak limit {r['limit']} bytes; autoshard's own "
                  f"peak {r['model_peak']:.0f}, the schedule's {r['auto_peak']:.0f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xlite", default="build/xlite/tools/xlite")
    parser.add_argument("--keep", help="keep the modules and outputs in this folder")
    parser.add_argument("--quick", action="store_true", help="the MLP on 2x4 alone")
    parser.add_argument("--write-hlo", nargs=4, metavar=("PROGRAM", "MESH", "PLAN", "FILE"),
                        help="write one module (PLAN: unsharded, dp, megatron, fsdp) and exit")
    parser.add_argument("only", nargs="*", help="programs to run (default: all)")
    opts = parser.parse_args()
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    try:
        import jax
    except ImportError:
        print("jax is not installed: skipped (see the script's docstring)")
        return 0
    e = Env(jax)
    if opts.write_hlo:
        name, mesh, plan, path = opts.write_hlo
        with open(path, "w") as out:
            out.write(lower(e, *PROGRAMS[name](e), None if plan == "unsharded" else plan, mesh))
        return 0
    work = opts.keep or tempfile.mkdtemp(prefix="autoshard_family_")
    cases = [("mlp_adam", "2x4")] if opts.quick else [
        (n, m) for n in PROGRAMS if not opts.only or n in opts.only for m in MESHES]
    rows, built = [], {}
    for name, mesh in cases:
        if name not in built:
            e.rng = e.np.random.default_rng(0)
            built[name] = PROGRAMS[name](e)
            os.makedirs(os.path.join(work, name), exist_ok=True)
            with open(os.path.join(work, name, "unsharded.hlo"), "w") as out:
                out.write(lower(e, *built[name]))
        try:
            rows.append(run_case(e, opts.xlite, work, name, built[name], mesh))
        except RuntimeError as error:
            print(f"{name} {mesh}: FAILED: {error}")
            rows.append(None)
    print_table([r for r in rows if r])
    failed = [r for r in rows if r is None or not (r["fits"] and r["equal"]) or
              (r["best"] and r["auto"] > r[r["best"]] * (1 + TOLERANCE))]
    print(f"{len(rows) - len(failed)}/{len(rows)} rows: autoshard within {TOLERANCE:.0%} of the best "
          f"hand plan that fits, within the limit, equal to the unsharded run")
    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
