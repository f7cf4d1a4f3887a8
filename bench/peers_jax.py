"""The XLA:CPU peer worker of bench/peers.py, in the venv that has jax:
"jit" times each workload written with jax.numpy under jax.jit; "hlo" has
XLA:CPU compile the very HLO file xlite runs (jaxlib parses the text, it is
converted to StableHLO and compiled by the CPU client) and times its
executable. XLA's intra-op thread pool is left at its default, one thread per
core. Speaks peer_common's line protocol on stdin/stdout.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_common import entry_parameters, median_ms, serve, workload_name  # noqa: E402


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


def compile_hlo_file(jax, path):
    """XLA:CPU's executable of the HLO text file and a call that runs it on
    device arrays and waits for every result."""
    import jaxlib._hlo as hlo
    from jax._src.lib import _jax
    with open(path) as f:
        module = hlo.hlo_module_from_text(f.read())
    stablehlo = _jax.mlir.hlo_to_stablehlo(module.as_serialized_hlo_module_proto())
    device = jax.devices("cpu")[0]
    executable = device.client.compile_and_load(stablehlo, [device])

    def run(arguments):
        results = executable.execute_sharded(arguments)
        for per_output in results.disassemble_into_single_device_arrays():
            for array in per_output:
                array.block_until_ready()

    return run, device


def main():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    import numpy as np
    peers = jax_peers(jax, jnp)
    rng = np.random.default_rng(0)
    prepared = {}  # (mode, path) -> call

    def prepare(mode, path):
        if (mode, path) in prepared:
            return prepared[(mode, path)]
        host = [rng.standard_normal(s, dtype=np.float32) * 0.1 for s in entry_parameters(path)]
        if mode == "jit":
            fn = jax.jit(peers[workload_name(path)])
            inputs = [jnp.asarray(x) for x in host]
            call = lambda: fn(*inputs).block_until_ready()  # noqa: E731
        elif mode == "hlo":
            run, device = compile_hlo_file(jax, path)
            inputs = [jax.device_put(x, device) for x in host]
            call = lambda: run(inputs)  # noqa: E731
        else:
            raise ValueError(f"unknown mode {mode}")
        prepared[(mode, path)] = call
        return call

    def info():
        import jaxlib
        return {"version": f"jax {jax.__version__}, jaxlib {jaxlib.__version__}",
                "threads": f"default (one per core: {len(os.sched_getaffinity(0))})"}

    def time_workload(mode, path, warmup, repeat):
        # At least one warmup: jax.jit compiles at the first call.
        return {"ms": median_ms(prepare(mode, path), max(1, warmup), repeat)}

    def gemm(m, n, k, transpose_b, batch, repeat):
        """GFLOP/s of XLA:CPU's dot on [batch,]m x k times k x n (b stored
        n x k and transposed when transpose_b)."""
        lead = (batch,) if batch > 1 else ()
        a = jnp.asarray(rng.standard_normal((*lead, m, k), dtype=np.float32))
        b = jnp.asarray(rng.standard_normal((*lead, n, k) if transpose_b else (*lead, k, n),
                                            dtype=np.float32))
        fn = jax.jit(lambda a, b: a @ (jnp.swapaxes(b, -1, -2) if transpose_b else b))
        ms = median_ms(lambda: fn(a, b).block_until_ready(), 1, repeat)
        return {"gflops": 2.0 * batch * m * n * k / (ms * 1e6)}

    serve(dict(info=info, time=time_workload, gemm=gemm))


if __name__ == "__main__":
    main()
