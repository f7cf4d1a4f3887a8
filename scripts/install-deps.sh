#!/bin/bash
# Installs the Debian packages xlite needs: by default what `make demo` and
# `make test` use; `fuzz` adds clang for `make fuzz`, `bench` the PyTorch
# peer of `make bench-peers` and the GEMM libraries of bench/gemm_libs_bench,
# `browser` headless Chromium for the tests that render xlite's plots (they
# skip without it). Idempotent and quiet: does nothing when
# everything is present, and runs `apt-get update` only when something has to
# be installed.
#   scripts/install-deps.sh [fuzz] [bench] [browser]
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ python3 python3-numpy
  # FileCheck for the lit tests; the venv of the Python package's tests and
  # the headers its extension module compiles against.
  llvm-19-tools python3-venv python3-dev
  libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev zlib1g-dev
  # Optional layers: the CPU backend (LLVM ORC JIT, library GEMM and
  # convolution), the MPI communicator, LAPACK and CBC. The core builds without them.
  llvm-19-dev libdnnl-dev libopenblas-dev openmpi-bin libopenmpi-dev
  # JAX's LAPACK custom-calls (jnp.linalg on CPU) in the evaluator.
  liblapacke-dev
  # The ILP solver of `xlite autoshard` (without it the heuristic alone answers).
  coinor-libcbc-dev
)
for group in "$@"; do
  case "$group" in
    # libFuzzer comes with clang's runtime libraries.
    fuzz) packages+=(clang-19 libclang-rt-19-dev) ;;
    # The PyTorch 1 eager peer of bench/peers.sh (its other peers come from
    # PyPI) and the GEMM libraries bench/gemm_libs_bench compares.
    bench) packages+=(python3-torch libblis-dev libxsmm-dev) ;;
    browser) packages+=(chromium) ;;
    *) echo "install-deps: unknown group '$group' (fuzz, bench, browser)" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != installed ]]; then
    missing+=("$pkg")
  fi
done

if (( ${#missing[@]} == 0 )); then
  exit 0
fi

# sudo drops the environment, so the frontend is passed through env.
as_root=(env DEBIAN_FRONTEND=noninteractive)
if (( EUID != 0 )); then
  as_root=(sudo "${as_root[@]}")
fi

echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
