#!/usr/bin/env bash
# Builds the app and serves the static site on localhost.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/build.sh
port="${PORT:-8080}"
echo "trainplan: open http://127.0.0.1:${port}/"
cd web && exec npx vite preview --port "$port" --strictPort --host 127.0.0.1
