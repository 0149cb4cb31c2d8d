#!/usr/bin/env bash
# Builds everything and runs every test: the C tests under ctest
# (Fujii et al. 2024 tables, config errors, presets, CLI), the core against a
# second implementation in Python (tests/reference), the same again under ASan
# and UBSan with a minute of libFuzzer (ci/sanitize.sh), the WebAssembly core
# in Node against the same paper tables, and the page in Chromium through
# Playwright. Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/build.sh

echo "== C tests (ctest)"
(cd build && ctest --output-on-failure)

echo "== The core against its Python reference implementation"
python3 -m unittest discover -s tests/reference -v

ci/sanitize.sh

echo "== WebAssembly and browser tests (node --test)"
node --test --test-reporter=spec tests/web/ tests/wasm/ tests/e2e/
