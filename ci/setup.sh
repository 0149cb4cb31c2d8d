#!/usr/bin/env bash
# Installs everything trainplan needs on a fresh Debian machine, once:
# Debian packages (compilers, cmake, libcjson-dev, emscripten, chromium, clang
# with libFuzzer for ci/sanitize.sh, python3 for the reference implementation),
# cJSON's source for the WebAssembly build, and the npm packages of web/ and
# tests/. Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

packages=(gcc make cmake libcjson-dev emscripten node-acorn chromium dpkg-dev clang libclang-rt-dev python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v node > /dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

ci/fetch_cjson.sh

for dir in web tests; do
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
