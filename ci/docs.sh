#!/usr/bin/env bash
# Rewrites the generated block of docs/config.md (between its
# <!-- fields:begin --> and <!-- fields:end --> lines) from the field table,
# through `build/trainplan fields --markdown`. Run after a change to
# a field row (core/trainplan.h); the docs_config test fails until then.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 tests/structure/check_docs.py build/trainplan docs/config.md --write
