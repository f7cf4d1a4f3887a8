#!/usr/bin/env python3
"""Writes examples/jax_train_step.hlo: the HLO JAX gives XLA for one SGD step
of a two-layer tanh MLP, data-parallel over 4 devices (the batch split on the
mesh axis "data", the weights replicated), as XLA dumps it before its own
optimizations; beside it jax_train_step.inputs.npz (the step's arguments as
arg0, arg1, arg2) and jax_train_step.xla.npz (XLA's results as out0, out1,
out2, the names `xlite run --output` uses). The README's tour runs xlite on
them.

Needs jax (`python3 -m venv build/jax-venv && build/jax-venv/bin/pip install
jax`); run it with that interpreter:

  build/jax-venv/bin/python examples/jax_train_step.py [OUTPUT.hlo]

The sharding annotations here are GSPMD's (`sharding={...}`); JAX's default,
Shardy, writes them as `xla.sdy.*` attributes instead.
"""
import glob
import os
import shutil
import sys
import tempfile

dump = tempfile.mkdtemp(prefix="xlite_tour_")
os.environ["XLA_FLAGS"] = (f"--xla_force_host_platform_device_count=4 --xla_dump_to={dump}")

import jax  # noqa: E402  (XLA_FLAGS must be set first)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402


def loss(w1, w2, x):
    h = jnp.tanh(x @ w1)
    return jnp.mean((h @ w2) ** 2)


def step(w1, w2, x):
    value, (g1, g2) = jax.value_and_grad(loss, argnums=(0, 1))(w1, w2, x)
    return value, w1 - 0.1 * g1, w2 - 0.1 * g2


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                             "jax_train_step.hlo")
    jax.config.update("jax_use_shardy_partitioner", False)
    mesh = jax.make_mesh((4,), ("data",))
    replicated = NamedSharding(mesh, P())
    rows = NamedSharding(mesh, P("data", None))
    w1 = jax.device_put(jnp.full((32, 64), 0.01), replicated)
    w2 = jax.device_put(jnp.full((64, 8), 0.01), replicated)
    x = jax.device_put(jnp.arange(64 * 32, dtype=jnp.float32).reshape(64, 32) / 2048, rows)
    results = jax.jit(step)(w1, w2, x)
    print("loss from XLA:", float(results[0]))
    (found,) = glob.glob(os.path.join(dump, "*jit_step.before_optimizations.txt"))
    shutil.copyfile(found, out)
    shutil.rmtree(dump)
    stem = out[:-len(".hlo")] if out.endswith(".hlo") else out
    np.savez(stem + ".inputs.npz", arg0=np.asarray(w1), arg1=np.asarray(w2), arg2=np.asarray(x))
    np.savez(stem + ".xla.npz", **{f"out{i}": np.asarray(r) for i, r in enumerate(results)})
    print("wrote", out, stem + ".inputs.npz", stem + ".xla.npz")


if __name__ == "__main__":
    main()
