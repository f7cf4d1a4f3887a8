#!/usr/bin/env python3
"""Writes the HLO of a Llama-3-8B-sized training step, unsharded, for auto-sharding.

The model has Llama 3 8B's shapes: 32 layers of d_model 4096, 32 query heads
and 8 key/value heads of 128 (grouped-query attention with rotary positions),
a SwiGLU MLP of 14336, RMSNorm, a 128256-token vocabulary with separate
embedding and output head; a step is the forward pass, cross-entropy, the
backward pass and an Adam update (f32 master weights and moments). The layers
are a `lax.scan` over stacked weights, as MaxText and most JAX models write
them (`--unrolled` writes them one after another instead). Only shapes are
traced, nothing is allocated, so any machine with jax writes it in seconds:

  /work/jax-venv/bin/python scripts/write_llama_step.py OUT.hlo [--batch 8] [--seq 2048]
      [--layers 32] [--unrolled]

bench/autoshard_bench times `xlite autoshard` on the result (docs/autoshard.md).
Without jax the script says so and exits 0.
"""
import argparse
import re
import sys

D_MODEL, HEADS, KV_HEADS, HEAD_DIM, D_FF, VOCAB = 4096, 32, 8, 128, 14336, 128256


def build(jax, jnp, layers, batch, seq, unrolled):
    def rms_norm(x, scale):
        x32 = x.astype(jnp.float32)
        norm = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + 1e-5)
        return (norm * scale).astype(x.dtype)

    def rotary(x):
        half = HEAD_DIM // 2
        freq = 1.0 / (500000.0 ** (jnp.arange(half, dtype=jnp.float32) / half))
        angle = jnp.arange(seq, dtype=jnp.float32)[:, None] * freq[None, :]
        cos, sin = jnp.cos(angle)[None, :, None, :], jnp.sin(angle)[None, :, None, :]
        a, b = x[..., :half].astype(jnp.float32), x[..., half:].astype(jnp.float32)
        return jnp.concatenate([a * cos - b * sin, a * sin + b * cos], -1).astype(x.dtype)

    def layer(h, w):
        x = rms_norm(h, w["attn_norm"])
        q = rotary((x @ w["wq"]).reshape(batch, seq, HEADS, HEAD_DIM))
        k = rotary((x @ w["wk"]).reshape(batch, seq, KV_HEADS, HEAD_DIM))
        v = (x @ w["wv"]).reshape(batch, seq, KV_HEADS, HEAD_DIM)
        k = jnp.repeat(k, HEADS // KV_HEADS, axis=2)
        v = jnp.repeat(v, HEADS // KV_HEADS, axis=2)
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / HEAD_DIM ** 0.5
        causal = jnp.tril(jnp.ones((seq, seq), bool))
        probs = jax.nn.softmax(jnp.where(causal, scores, -1e9), axis=-1).astype(h.dtype)
        attn = jnp.einsum("bhqk,bkhd->bqhd", probs, v).reshape(batch, seq, D_MODEL)
        h = h + attn @ w["wo"]
        x = rms_norm(h, w["mlp_norm"])
        return h + (jax.nn.silu(x @ w["w_gate"]) * (x @ w["w_up"])) @ w["w_down"]

    def loss_fn(params, tokens, targets):
        h = params["embed"][tokens].astype(jnp.bfloat16)
        blocks = jax.tree.map(lambda p: p.astype(jnp.bfloat16), params["layers"])
        if unrolled:
            for i in range(layers):
                h = layer(h, jax.tree.map(lambda p: p[i], blocks))
        else:
            h, _ = jax.lax.scan(lambda c, w: (layer(c, w), None), h, blocks)
        logits = (rms_norm(h, params["final_norm"].astype(jnp.bfloat16)) @
                  params["head"].astype(jnp.bfloat16)).astype(jnp.float32)
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.take_along_axis(logp, targets[..., None], axis=-1))

    def step(params, m, v, tokens, targets):
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
        b1, b2, lr = 0.9, 0.95, 3e-4
        m = jax.tree.map(lambda a, g: b1 * a + (1 - b1) * g, m, grads)
        v = jax.tree.map(lambda a, g: b2 * a + (1 - b2) * g * g, v, grads)
        params = jax.tree.map(lambda p, a, b: p - lr * a / (jnp.sqrt(b) + 1e-8), params, m, v)
        return loss, params, m, v

    f32 = jnp.float32
    shape = jax.ShapeDtypeStruct
    per_layer = {"attn_norm": (D_MODEL,), "mlp_norm": (D_MODEL,),
                 "wq": (D_MODEL, HEADS * HEAD_DIM), "wk": (D_MODEL, KV_HEADS * HEAD_DIM),
                 "wv": (D_MODEL, KV_HEADS * HEAD_DIM), "wo": (HEADS * HEAD_DIM, D_MODEL),
                 "w_gate": (D_MODEL, D_FF), "w_up": (D_MODEL, D_FF), "w_down": (D_FF, D_MODEL)}
    params = {"embed": shape((VOCAB, D_MODEL), f32), "head": shape((D_MODEL, VOCAB), f32),
              "final_norm": shape((D_MODEL,), f32),
              "layers": {k: shape((layers,) + s, f32) for k, s in per_layer.items()}}
    tokens = shape((batch, seq), jnp.int32)
    return step, (params, params, params, tokens, tokens)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=2048)
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--unrolled", action="store_true")
    args = parser.parse_args()
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("write_llama_step: skipped: jax is not installed (pip install jax)")
        return 0
    step, abstract = build(jax, jnp, args.layers, args.batch, args.seq, args.unrolled)
    text = jax.jit(step).lower(*abstract).as_text(dialect="hlo")
    # As JAX compiles a jit without out_shardings: outputs left to propagation.
    text = re.sub(r"^HloModule (\S+), ",
                  r"HloModule \1, allow_spmd_sharding_propagation_to_output={true}, ", text,
                  count=1)
    with open(args.output, "w") as out:
        out.write(text)
    print(f"wrote {args.output}: {text.count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
