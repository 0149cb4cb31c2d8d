#!/usr/bin/env bash
# Builds the app and serves the static site (public/) on localhost with
# Vite's preview server. --no-build serves public/ as it is: the browser
# tests serve the page this way, so that what they check offline is what
# this script serves.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" != --no-build ]]; then ci/build.sh; fi
port="${PORT:-8080}"
echo "trainplan: open http://127.0.0.1:${port}/"
cd web && exec npx vite preview --port "$port" --strictPort --host 127.0.0.1
