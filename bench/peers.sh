#!/bin/bash
# Times the shared benchmark workloads (../shared/bench/*.hlo) on xlite and,
# interleaved round by round, on PyTorch eager (Debian python3-torch), PyTorch
# 2 eager and torch.compile, and XLA:CPU (jax.jit, and the same HLO file),
# the PyPI peers in build/peers-venv (made with pip where missing), 2 threads
# each; prints medians, ratios and this machine's GEMM and bandwidth limits.
# Measures only (not in `make test`). Arguments go to bench/peers.py (--help).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 "$root/bench/peers.py" "$@"
