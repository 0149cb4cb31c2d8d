#!/usr/bin/env bash
# Fetches cJSON's source for the WebAssembly build from Debian's source
# package, the same version as the installed libcjson-dev (which the native
# build links), with Debian's patches applied. apt checks every file against
# the archive's signed Sources index (dpkg-source's own check of the .dsc
# signature needs a maintainer keyring this machine lacks, hence --no-check).
# Never vendored into git: it lands in build/third_party/cjson.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=build/third_party/cjson
[ -f "$dest/cJSON.c" ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
version=$(dpkg-query -W -f='${source:Version}' libcjson-dev)

# apt-get source needs deb-src entries; derive them from the deb entries.
if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  list=/etc/apt/sources.list.d/trainplan-deb-src.sources
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $sudo tee "$list" > /dev/null
  else
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list | $sudo tee "${list%.sources}.list" > /dev/null
  fi
  $sudo apt-get update -q
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && apt-get source -q --download-only "cjson=$version" > apt.log 2>&1); then
  cat "$work/apt.log" >&2
  echo "fetch_cjson: could not download Debian's cjson $version source package" >&2
  exit 1
fi
(cd "$work" && dpkg-source --no-check -x cjson_*.dsc src > /dev/null)
mkdir -p "$dest"
cp "$work/src/cJSON.c" "$work/src/cJSON.h" "$work/src/LICENSE" "$dest/"
echo "fetch_cjson: cJSON $version source in $dest"
