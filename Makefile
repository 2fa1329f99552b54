# The front door. `make run` and `make test` work from a fresh clone on Debian:
# both install missing packages first (scripts/install-deps.sh; `make test` adds --matrix:
# the cross compilers, qemu and emscripten of the determinism matrix).
#   make run         build (release) and start arbiter-server on the built-in scene (and
#                    its web page: the URL is in the log)
#   make demo        server + 4 bots + arbiter-view; closing the window stops them all
#   make test        release + ASan/UBSan + debug builds, ctest on each, short fuzz runs
#   make check       the fast loop: release build + unit tests only (seconds once built)
#   make build       release build only          make bench   run the benchmarks
#   make fuzz-long   run every fuzz target for FUZZ_SECONDS (default 600) each
#   make soak        the long tests left out of `make test` (10 min at 20 % loss; the energy
#                    stress suite with 4x the ticks and seeds; release)
#   make clean       make test-docker   build docker/Dockerfile with podman, run the image (root)
# Extra arguments for the server: make run ARGS="--port 7000"

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
ARGS ?=
BIN := build/release/bin

.PHONY: all deps deps-matrix build run demo test check test-release test-asan test-debug test-fuzz fuzz-long soak bench clean help test-docker

all: build

help:
	@sed -n '1,14p' Makefile

deps:
	@scripts/install-deps.sh

# The determinism matrix's other platforms (aarch64, i386, wasm32): docs/DETERMINISM.md.
deps-matrix:
	@scripts/install-deps.sh --matrix

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# The WebSocket port lets the browser page play (its URL is in the startup log); ARGS come
# after it, so ARGS="--ws-port 0" turns it off.
WS_PORT ?= 7778
run: build
	@if [ -x $(BIN)/arbiter-server ]; then \
	  exec $(BIN)/arbiter-server --ws-port $(WS_PORT) $(ARGS); \
	else \
	  exec $(BIN)/arbiter-sim --ticks 600 --every 60 $(ARGS); \
	fi

# Server on the default scene, 4 bots and the viewer (scripts/demo.sh); ARGS go to the viewer.
demo: build
	@scripts/demo.sh $(ARGS)

test: deps-matrix test-release test-asan test-debug test-fuzz

# The edit-compile-test loop: the release build and the tests labelled "unit" (no live
# servers, no matrix builds). Installs nothing; `make test` before pushing.
check:
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)
	ctest --preset release -j $(JOBS) -L unit

test-release:
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)
	ctest --preset release -j $(JOBS)

# Every test once more under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan:
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

# -O0: the golden determinism hashes must come out the same as in release and asan.
test-debug:
	cmake --preset debug >/dev/null
	cmake --build --preset debug -j $(JOBS)
	ctest --preset debug -j $(JOBS) -L 'unit|replay'

# Tests labelled "soak" (the test presets exclude them): minutes each.
soak:
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)
	ctest --test-dir build/release -L soak --output-on-failure

# Each libFuzzer target for a short bounded time (scripts/fuzz.sh).
# Only the fuzz-* targets (and what they link) are built in the fuzz preset.
FUZZ_TARGETS = $$(ninja -C build/fuzz -t targets all | sed -n 's/^\(fuzz-[^:/]*\):.*/\1/p' | sort -u)

test-fuzz:
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS) --target $(FUZZ_TARGETS)
	scripts/fuzz.sh build/fuzz/bin $${FUZZ_SECONDS:-10}

fuzz-long:
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS) --target $(FUZZ_TARGETS)
	scripts/fuzz.sh build/fuzz/bin $${FUZZ_SECONDS:-600}

bench: build
	@# every bench program; bench-capacity after them, on the generated capacity scene
	@for b in $(BIN)/bench-*; do if [ -x "$$b" ] && [ "$${b##*/}" != bench-capacity ]; then "$$b"; fi; done
	python3 bench/capacity/make_scene.py > build/release/capacity.json
	$(BIN)/bench-capacity build/release/capacity.json

clean:
	rm -rf build

# The container image, built and run without a Docker engine (scripts/test-docker.sh).
test-docker:
	scripts/test-docker.sh
