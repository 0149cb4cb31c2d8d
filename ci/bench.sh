#!/usr/bin/env bash
# Benchmarks: native (build/trainplan_bench), the Python reference's memory
# model (tests/reference; it has no step time or search, so no ratio and no
# Python searches) on the same machine, WebAssembly in Node and in Chromium
# through the page's engine (one worker, then one per core), on the same
# cases (tests/bench/cases.json). Prints figures; never fails on timing.
# Builds first, like ci/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/build.sh > /dev/null
echo "== native"
build/trainplan_bench tests/bench/cases.json
echo "== Python reference's memory model (tests/reference), beside native's whole estimate"
python3 tests/bench/bench_python.py
echo "== WebAssembly (Node)"
node tests/bench/bench_wasm.mjs
echo "== WebAssembly (Chromium, the page's engine and web workers)"
node tests/bench/bench_browser.mjs
echo "== The page's budgets (Chromium: first result, updates, transfer size)"
node tests/bench/bench_page.mjs
