#!/usr/bin/env bash
# Builds everything: the native library, CLI and tests (build/), the
# WebAssembly core (wasm/out/), and the static site (public/).
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$(nproc)"

make -C wasm --no-print-directory

# The site: Vite bundles web/src; the worker, its wrapper and the wasm are
# served as they are from web/static/wasm.
rm -rf web/static/wasm && mkdir -p web/static/wasm
cp wasm/out/trainplan-core.js wasm/out/trainplan-core.wasm wasm/trainplan.js wasm/worker.js web/static/wasm/
# the core's field table, which the page's form takes its defaults and
# ranges from (web/src/fields.js)
{
  echo "// Written by ci/build.sh from \`build/trainplan fields\`: do not edit."
  printf 'export const CORE_FIELDS = '
  build/trainplan fields | python3 -c '
import json, sys
rows = [{k: v for k, v in f.items() if k != "doc"} for f in json.load(sys.stdin)["fields"]]
print(json.dumps(rows, separators=(",", ":")) + ";")'
} > web/src/corefields.js
find public -mindepth 1 -maxdepth 1 ! -name README.md ! -name .gitignore -exec rm -rf {} +
(cd web && npx vite build --logLevel warn)
echo "build: site in public/ ($(du -sh public | cut -f1))"
