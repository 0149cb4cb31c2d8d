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
find public -mindepth 1 -maxdepth 1 ! -name README.md ! -name .gitignore -exec rm -rf {} +
(cd web && npx vite build --logLevel warn)
echo "build: site in public/ ($(du -sh public | cut -f1))"
