"""The step the jax_*_agreement scripts share: one jitted JAX function run by
XLA:CPU (through jax) and by `xlite run` on the HLO text it lowers to, with
the same inputs (an .npz) and xlite's results read back from `--output`."""
import os
import subprocess

import jax
import numpy as np


def run_both(xlite, backend, base, fn, inputs, positional=False):
    """Writes BASE.hlo and BASE.in.npz and returns (XLA's result leaves,
    xlite's leaves or None, the last line of xlite's error). `positional`
    saves the inputs as np.savez(*inputs) does (arr_0, arr_1...), else as
    arg0, arg1..."""
    jitted = jax.jit(fn)
    with open(base + ".hlo", "w") as f:
        f.write(jitted.lower(*inputs).as_text(dialect="hlo"))
    expected = [np.asarray(l) for l in jax.tree_util.tree_leaves(jitted(*inputs))]
    if positional:
        np.savez(base + ".in.npz", *inputs)
    else:
        np.savez(base + ".in.npz", **{f"arg{i}": x for i, x in enumerate(inputs)})
    cmd = [xlite, "run", base + ".hlo", "--inputs", base + ".in.npz", "--output",
           base + ".out.npz", "--backend", backend]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        return expected, None, lines[-1] if lines else "failed"
    with np.load(base + ".out.npz") as out:
        return expected, [out[f"out{i}"] for i in range(len(expected))], ""
