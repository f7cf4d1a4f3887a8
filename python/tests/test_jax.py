"""xlite.jit(f)(x) equals jax.jit(f)(x); skipped without jax."""

import numpy as np
import pytest

import xlite

jax = pytest.importorskip("jax", reason="jax is not installed (try /work/jax-venv)")
jnp = jax.numpy

FUNCTIONS = {
    "elementwise": lambda x: jnp.tanh(x) * 2 + jnp.exp(-x),
    "softmax": lambda x: jax.nn.softmax(x, axis=-1),
    "matmul": lambda x: x @ x.T + 1,
    "reduce": lambda x: (jnp.sum(x, axis=0), jnp.max(x)),
    "pytree": lambda x: {"mean": jnp.mean(x), "sq": x * x},
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jit_matches_jax(name):
    fn = FUNCTIONS[name]
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    got = xlite.jit(fn)(x)
    want = jax.jit(fn)(x)
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-5, atol=1e-5)


def test_from_jax_keeps_unused_arguments():
    module = xlite.Module.from_jax(lambda x, y: x + 1, np.ones(3, np.float32), np.ones(2, np.float32))
    assert len(module.parameters) == 2
    module.verify()
