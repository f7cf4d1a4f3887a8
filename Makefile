# Entry points: `make demo`, `make test` (what CI runs), `make fuzz`, `make bench`,
# `make bench-peers`.
# Builds use Ninja with $(JOBS) jobs (2 by default, the CI machine's cores).

JOBS ?= 2
LIT := /usr/lib/llvm-19/build/utils/lit/lit.py
# Optimised, with line tables only (-g1): compiles about a fifth faster than
# full debug info and is still enough for perf, callgrind and file:line in
# backtraces (configure your own build dir with -g to step through locals).
CMAKE_FLAGS := -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
# The sanitizer build optimises less: it compiles faster and still reports
# file:line. It builds the libraries and every GoogleTest program (unit,
# conformance, differential) but not the command line and its lit tests,
# which the normal build runs (the fuzzer runs the parser under sanitizers).
ASAN_FLAGS := -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" \
    -DXLITE_TOOLS=OFF -DXLITE_PYTHON=OFF
FUZZ_SECONDS ?= 180

.PHONY: deps build demo test test-asan fuzz bench bench-peers clean python-venv

deps:
	@scripts/install-deps.sh

# The venv the build's Python module and its ctest test `python` use
# (PyPI: nanobind, scikit-build-core, numpy, pytest, ml_dtypes); the next
# configure of build/ finds it and builds the module from the same libraries.
python-venv:
	@test -x build/py-venv/bin/python || python3 -m venv build/py-venv
	@build/py-venv/bin/pip install -q nanobind scikit-build-core numpy pytest ml_dtypes

build: deps
	@cmake -S . -B build $(CMAKE_FLAGS) >/dev/null
	@ninja -C build -j$(JOBS)

# A first run builds only the command line (the demo needs nothing else);
# `make test` builds the rest.
demo: deps
	@cmake -S . -B build $(CMAKE_FLAGS) >/dev/null
	@ninja -C build -j$(JOBS) xlite
	build/xlite/tools/xlite verify examples/mlp.hlo
	build/xlite/tools/xlite stats examples/mlp.hlo
	build/xlite/tools/xlite run examples/mlp.hlo --random 0
	@echo "== before optimization"; cat examples/mlp.hlo
	build/xlite/tools/xlite cost examples/mlp.hlo --device h100
	@echo "== after xlite opt --pipeline=default"
	build/xlite/tools/xlite opt examples/mlp.hlo --pipeline=default --pass-stats > build/mlp.opt.hlo
	cat build/mlp.opt.hlo
	build/xlite/tools/xlite cost build/mlp.opt.hlo --device h100
	build/xlite/tools/xlite run build/mlp.opt.hlo --random 0

# Unit, conformance, lit and Python tests in the normal build, then the same
# under ASan+UBSan (no benchmarks there: they only measure; no Python module:
# an instrumented extension cannot load into an uninstrumented interpreter).
test: deps python-venv build
	cd build && ctest --output-on-failure -j$(JOBS)
	@$(MAKE) --no-print-directory test-asan

test-asan: deps
	@cmake -S . -B build-asan $(ASAN_FLAGS) -DXLITE_SANITIZE=ON -DXLITE_BENCH=OFF >/dev/null
	@ninja -C build-asan -j$(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    ctest --output-on-failure -j$(JOBS)

# The seed corpus: the examples, the lit inputs and (when present) the shared
# real-world modules, split into one module per file.
fuzz:
	@scripts/install-deps.sh fuzz
	@cmake -S . -B build-fuzz $(CMAKE_FLAGS) -DCMAKE_CXX_COMPILER=clang++-19 \
	    -DXLITE_FUZZ=ON -DXLITE_SANITIZE=ON -DXLITE_BENCH=OFF >/dev/null
	@ninja -C build-fuzz -j$(JOBS) parser_fuzzer
	@rm -rf build-fuzz/seeds && mkdir -p build-fuzz/seeds build-fuzz/corpus
	@python3 scripts/make_seed_corpus.py build-fuzz/seeds examples tests/lit ../shared/corpus/hlo
	build-fuzz/fuzz/parser_fuzzer -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -timeout=10 -rss_limit_mb=4096 -artifact_prefix=build-fuzz/ \
	    build-fuzz/corpus build-fuzz/seeds

bench: deps
	@cmake -S . -B build $(CMAKE_FLAGS) -DXLITE_BENCH=ON >/dev/null
	@ninja -C build -j$(JOBS) parse_bench cost_bench eval_bench opt_bench small_program_bench \
	    autoshard_bench
	@test ! -x ../jax-venv/bin/python || test -f build/llama3_8b_step.hlo || \
	    ../jax-venv/bin/python scripts/write_llama_step.py build/llama3_8b_step.hlo
	build/bench/parse_bench
	build/bench/cost_bench
	build/bench/eval_bench
	build/bench/opt_bench
	build/bench/small_program_bench
	build/bench/autoshard_bench

# xlite against PyTorch eager (Debian's and PyTorch 2), torch.compile and
# XLA:CPU (torch and jax in build/peers-venv, where pip reaches PyPI) on
# ../shared/bench, interleaved; measures only, no pass/fail. PEERS_ARGS go to
# bench/peers.py, e.g. PEERS_ARGS="--rounds 5 --no-compile".
bench-peers:
	@scripts/install-deps.sh bench
	@cmake -S . -B build $(CMAKE_FLAGS) >/dev/null
	@ninja -C build -j$(JOBS) xlite small_program_bench
	bench/peers.sh $(PEERS_ARGS)

clean:
	rm -rf build build-asan build-fuzz
