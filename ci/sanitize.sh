#!/usr/bin/env bash
# The C core under AddressSanitizer and UndefinedBehaviorSanitizer (clang):
# every C test again, then libFuzzer over the JSON entry points, the
# estimate, the search, the merges of sweep shards and search parts, the
# calibration and the log reader (calibrate-log),
# FUZZ_SECONDS each (default 30), seeded from tests/fuzz/corpus and
# speaking the schema's keys (a dictionary made from `trainplan fields`).
# A unit may take 10 s (the search target holds its work budget to a
# two-hundredth of the default, the calibration target its runs to 6 and its
# iterations to 20: each well under a second under the sanitizers).
# Fails on any test failure, crash, leak or sanitizer report; a crashing
# input is left in build-sanitize/ as crash-* and printed. Called by ci/test.sh after ci/build.sh has run ci/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-30}"

CC=clang cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DTP_FUZZ=ON > /dev/null
cmake --build build-sanitize -j "$(nproc)" > /dev/null

echo "== C tests under ASan + UBSan (ctest)"
# All but the leave-one-source-out report, which the optimized build's
# ctest runs: its thousands of leave-one-out fits would take the better
# part of an hour here, and test_calibrate and the calibrate fuzzer run
# the same fitter under the sanitizers.
(cd build-sanitize && ctest --output-on-failure -E '^validation_loso$' | tail -3)

# a dictionary of the schema's keys and names, so that mutations speak it
dict=build-sanitize/keys.dict
{
  for key in model system training parallel overheads search sweep preset cluster gpu network moe mla \
             precision amsp order per_node dp gpus max_evaluations memory_fraction top placement \
             tp_across_nodes shard index count points point_count \
             runs config measured step_s tokens_per_s_per_gpu tflops_per_gpu mfu peak_memory_gib \
             memory_kind reserved allocated fit max_iterations leave_one_out; do
    echo "\"\\\"$key\\\"\""
  done
  # the log reader's keys, as trainers print them
  for key in 'step: ' 'validate step: ' 'tps: ' 'wps: ' 'memory: ' 'GiB' 'elapsed time per iteration (ms): ' \
             'train_step_timing in s: ' 'train_step_timing in s=' 'throughput/batches_per_sec: ' \
             'throughput/device/tokens_per_sec: ' 'throughput/device/mfu: ' 'memory (MB)' 'max reserved: ' \
             'max allocated: ' 'memory/peak_reserved_mem: ' 'memory/peak_allocated_mem: '; do
    echo "\"$key\""
  done
  build-sanitize/trainplan fields | python3 -c '
import json, sys
for f in json.load(sys.stdin)["fields"]:
    for word in [f["path"].split(".")[-1], f.get("old_key")] + f.get("names", []):
        if word:
            print(json.dumps(json.dumps(word)))'
} | sort -u > "$dict"

for target in fuzz_estimate fuzz_search fuzz_merge fuzz_calibrate fuzz_calibrate_log; do
  echo "== $target: ${seconds} s of libFuzzer under ASan + UBSan"
  # new inputs go to a scratch folder; the kept corpus is only read
  scratch="build-sanitize/corpus-$target"
  mkdir -p "$scratch"
  log="build-sanitize/$target.log"
  status=0
  (cd build-sanitize && "./$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
      -dict=keys.dict -print_final_stats=1 "corpus-$target" ../tests/fuzz/corpus) > "$log" 2>&1 || status=$?
  grep -E "^stat::(number_of_executed_units|slowest_unit_time_sec|peak_rss_mb)" "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$log"
    echo "sanitize: $target failed (exit $status); the input is in build-sanitize/crash-* or leak-*"
    exit 1
  fi
done
