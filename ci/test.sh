#!/usr/bin/env bash
# Builds everything and runs every test: the C tests under ctest (paper
# tables, config errors, presets, CLI), the core's memory against an
# independent derivation in Python (tests/reference) and its step time and
# search against reviewed golden outputs (tests/golden), the same again under
# ASan and UBSan with a minute of libFuzzer (ci/sanitize.sh), the WebAssembly
# core in Node against the same paper tables, and the page in Chromium through
# Playwright.
# Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/build.sh

echo "== C tests (ctest)"
(cd build && ctest --output-on-failure)

echo "== Memory against the Python reference; step time and search against goldens"
python3 -m unittest discover -s tests/reference -v

ci/sanitize.sh

echo "== WebAssembly and browser tests (node --test)"
node --test --test-reporter=spec tests/web/ tests/wasm/ tests/e2e/
