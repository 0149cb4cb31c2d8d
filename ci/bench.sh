#!/usr/bin/env bash
# Benchmarks: native (build/tests/trainplan_bench) and WebAssembly in Node
# on the same cases (tests/bench/cases.json). Prints figures; never fails on
# timing. Builds first, like ci/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/build.sh > /dev/null
echo "== native"
build/trainplan_bench tests/bench/cases.json
echo "== WebAssembly"
node tests/bench/bench_wasm.mjs
