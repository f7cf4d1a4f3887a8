#!/bin/bash
# Times the shared benchmark workloads (../shared/bench/*.hlo) on xlite, on
# PyTorch eager (Debian python3-torch, 2 threads) and, where pip can install
# jax into build/peers-venv, on XLA:CPU, side by side, and prints the ratios
# and this machine's GEMM and bandwidth limits. Measures only (not in `make
# test`). Arguments go to bench/peers.py (--help lists them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 "$root/bench/peers.py" "$@"
