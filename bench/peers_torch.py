"""The PyTorch peer worker of bench/peers.py: each shared workload as the
PyTorch one-liner its HLO file's first line names, timed in eager mode or
through torch.compile (inductor), 2 threads, on random inputs of the module's
parameter shapes. Run by the driver with a python that has torch (Debian's
python3-torch, or PyTorch 2 from PyPI in build/peers-venv); speaks
peer_common's line protocol on stdin/stdout.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_common import entry_parameters, median_ms, serve, workload_name  # noqa: E402

THREADS = 2


def torch_peers(torch, F):
    def conv_block(x, w1, b1, w2, b2):
        return F.relu(F.conv2d(F.relu(F.conv2d(x, w1, b1, padding=1)), w2, b2, padding=1) + x)

    def elementwise_chain(x):
        return torch.sigmoid(x) * x + torch.tanh(x * 0.5) * 2.0

    def layernorm(x, gamma, beta):
        return F.layer_norm(x, (1024,), gamma, beta, 1e-5)

    def mlp(x, w1, b1, w2, b2):
        return F.linear(F.gelu(F.linear(x, w1, b1), approximate="tanh"), w2, b2)

    def reduce_sum(x):
        return x.sum(dim=1)

    def softmax(x):
        return torch.softmax(x, dim=-1)

    def transformer_block(x, g1, b1, w_qkv, b_qkv, w_o, b_o, g2, b2, w_fc1, b_fc1, w_fc2,
                          b_fc2):
        h = F.layer_norm(x, (768,), g1, b1)
        q, k, v = (t.reshape(1, 512, 12, 64).transpose(1, 2)
                   for t in F.linear(h, w_qkv, b_qkv).split(768, -1))
        attn = torch.softmax(q @ k.transpose(-2, -1) * 0.125, -1) @ v
        x = x + F.linear(attn.transpose(1, 2).reshape(1, 512, 768), w_o, b_o)
        h = F.layer_norm(x, (768,), g2, b2)
        return x + F.linear(F.gelu(F.linear(h, w_fc1, b_fc1), approximate="tanh"), w_fc2,
                            b_fc2)

    return dict(conv_block=conv_block, elementwise_chain=elementwise_chain,
                layernorm=layernorm, mlp=mlp, reduce_sum=reduce_sum, softmax=softmax,
                transformer_block=transformer_block)


# bench/small_program_bench.cc's program: 20 elementwise ops on f32[16]; a
# binary op takes the previous value and x (even steps) or y (odd steps).
SMALL_PROGRAM = [
    ("add", True), ("multiply", True), ("subtract", True), ("maximum", True),
    ("tanh", False), ("multiply", True), ("add", True), ("negate", False),
    ("minimum", True), ("abs", False), ("add", True), ("exponential", False),
    ("multiply", True), ("subtract", True), ("logistic", False), ("add", True),
    ("divide", True), ("maximum", True), ("sqrt", False), ("add", True),
]


def main():
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    peers = torch_peers(torch, F)
    prepared = {}  # (mode, path) -> (function, inputs)

    def prepare(mode, path):
        if (mode, path) not in prepared:
            fn = peers[workload_name(path)]
            if mode == "compile":
                fn = torch.compile(fn)
            elif mode != "eager":
                raise ValueError(f"unknown mode {mode}")
            inputs = [torch.randn(s) * 0.1 for s in entry_parameters(path)]
            prepared[(mode, path)] = fn, inputs
        return prepared[(mode, path)]

    def info():
        capability = getattr(torch.backends.cpu, "get_cpu_capability", lambda: "?")()
        return {"version": torch.__version__, "threads": torch.get_num_threads(),
                "capability": capability, "compile": hasattr(torch, "compile")}

    def time_workload(mode, path, warmup, repeat):
        fn, inputs = prepare(mode, path)
        with torch.inference_mode():
            # torch.compile compiles at the first call: at least one warmup.
            ms = median_ms(lambda: fn(*inputs), max(warmup, 1 if mode == "compile" else 0),
                           repeat)
        return {"ms": ms}

    def gemm(m, n, k, transpose_b, batch, repeat):
        """GFLOP/s of torch.matmul on [batch,]m x k times k x n (b stored
        n x k and transposed when transpose_b, as F.linear's weight)."""
        lead = (batch,) if batch > 1 else ()
        a = torch.randn(*lead, m, k)
        b = torch.randn(*lead, n, k).transpose(-2, -1) if transpose_b else torch.randn(
            *lead, k, n)
        with torch.inference_mode():
            ms = median_ms(lambda: torch.matmul(a, b), 1, repeat)
        return {"gflops": 2.0 * batch * m * n * k / (ms * 1e6)}

    def conv(n, c, h, w, o, kernel, pad, repeat):
        """GFLOP/s of F.conv2d (with bias) on an NCHW input and OIHW weights."""
        x = torch.randn(n, c, h, w)
        weight = torch.randn(o, c, kernel, kernel)
        bias = torch.randn(o)
        with torch.inference_mode():
            ms = median_ms(lambda: F.conv2d(x, weight, bias, padding=pad), 1, repeat)
        out_h, out_w = h + 2 * pad - kernel + 1, w + 2 * pad - kernel + 1
        flops = 2.0 * n * o * out_h * out_w * c * kernel * kernel
        return {"gflops": flops / (ms * 1e6), "ms": ms}

    def small_program(calls):
        """Per-call microseconds of SMALL_PROGRAM in eager mode."""
        ops = dict(add=torch.add, multiply=torch.mul, subtract=torch.sub,
                   maximum=torch.maximum, minimum=torch.minimum, divide=torch.div,
                   tanh=torch.tanh, negate=torch.neg, abs=torch.abs, exponential=torch.exp,
                   logistic=torch.sigmoid, sqrt=torch.sqrt)
        x, y = torch.randn(16), torch.randn(16)

        def program():
            value = x
            for step, (opcode, binary) in enumerate(SMALL_PROGRAM, 1):
                operand = x if step % 2 == 0 else y
                value = ops[opcode](value, operand) if binary else ops[opcode](value)
            return value

        batch = max(1, calls // 10)
        with torch.inference_mode():
            ms = median_ms(lambda: [program() for _ in range(batch)], 1, 10)
        return {"us": ms * 1e3 / batch}

    serve(dict(info=info, time=time_workload, gemm=gemm, conv=conv,
               small_program=small_program))


if __name__ == "__main__":
    main()
