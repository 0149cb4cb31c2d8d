#!/usr/bin/env bash
# The C core under AddressSanitizer and UndefinedBehaviorSanitizer (clang):
# every C test again, then libFuzzer over the JSON entry points, the
# estimate and the search, FUZZ_SECONDS each (default 30), seeded from
# tests/fuzz/corpus. Fails on any test failure, crash, leak or sanitizer
# report; a crashing input is left in build-sanitize/ as crash-* and
# printed. Called by ci/test.sh after ci/build.sh has run ci/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-30}"

CC=clang cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DTP_FUZZ=ON > /dev/null
cmake --build build-sanitize -j "$(nproc)" > /dev/null

echo "== C tests under ASan + UBSan (ctest)"
(cd build-sanitize && ctest --output-on-failure | tail -3)

for target in fuzz_estimate fuzz_search; do
  echo "== $target: ${seconds} s of libFuzzer under ASan + UBSan"
  # new inputs go to a scratch folder; the kept corpus is only read
  scratch="build-sanitize/corpus-$target"
  mkdir -p "$scratch"
  log="build-sanitize/$target.log"
  status=0
  (cd build-sanitize && "./$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
      -print_final_stats=1 "corpus-$target" ../tests/fuzz/corpus) > "$log" 2>&1 || status=$?
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$log"
    echo "sanitize: $target failed (exit $status); the input is in build-sanitize/crash-* or leak-*"
    exit 1
  fi
done
