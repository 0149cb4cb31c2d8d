#!/bin/sh
# The CLI end to end: every preset through `estimate`, the table, the exit
# status and message of invalid input, and reading standard input.
set -u
cli="$1"
fail=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

models=$("$cli" presets --table | awk 'NR > 1 && NF == 0 { exit } NR > 1 { print $1 }')
[ "$(echo "$models" | wc -l)" -eq 21 ] && ok || bad "presets --table lists 21 models"
for model in $models; do
  # 2048 tokens: within every preset's learned positions (gpt3-175b has 2048)
  printf '{"model":{"preset":"%s"},"training":{"seq_len":2048}}' "$model" | "$cli" estimate - > /tmp/tp_smoke.$$ 2>&1 \
    && grep -q '"zone"' /tmp/tp_smoke.$$ && ok || bad "estimate preset $model"
done

echo '{"parallel":{"tp":2,"pp":2}}' | "$cli" estimate --table | grep -q 'peak .* GiB' && ok || bad "--table"

echo '{"parallel":{"tp":3}}' | "$cli" estimate - 2> /tmp/tp_smoke.$$ > /dev/null
[ $? -eq 2 ] && ok || bad "exit status 2 for invalid input"
grep -q 'parallel.tp: 3 does not divide model.heads=32' /tmp/tp_smoke.$$ && ok || bad "error names field"

"$cli" estimate /nonexistent.json > /dev/null 2>&1
[ $? -eq 1 ] && ok || bad "exit status 1 for a missing file"

echo '{"system":{"gpus":16}}' | "$cli" search --table | grep -q 'why the best plan' && ok || bad "search --table"
echo '{"system":{"gpus":16},"search":{"top":2}}' | "$cli" search | grep -c '"rank"' | grep -qx 2 && ok || bad "search JSON"
echo '{"search":{"sharding":"zero5"}}' | "$cli" search - 2> /tmp/tp_smoke.$$ > /dev/null
[ $? -eq 2 ] && ok || bad "search: exit status 2 for invalid input"
grep -q 'search.sharding: must be one of' /tmp/tp_smoke.$$ && ok || bad "search error names field"
# precision as a search choice: the table says each plan's; fp8 on an A100 refused
echo '{"system":{"gpus":16},"training":{"global_batch":64},"search":{"precision":["bf16","fp8"],"top":3}}' \
  | "$cli" search --table > /tmp/tp_smoke.$$ && grep -q ' precision ' /tmp/tp_smoke.$$ \
  && grep -q '^   1 .* fp8 ' /tmp/tp_smoke.$$ && grep -q '^  fp8: bf16 is ' /tmp/tp_smoke.$$ \
  && ok || bad "search --table with both precisions"
echo '{"system":{"cluster":"dgx-a100"},"search":{"precision":"fp8"}}' | "$cli" search - 2> /tmp/tp_smoke.$$ > /dev/null
[ $? -eq 2 ] && grep -q 'search.precision: fp8: training.precision.fp8: .* has no FP8 tensor cores' /tmp/tp_smoke.$$ \
  && ok || bad "search: fp8 refused on an A100, naming search.precision"

# a sweep run as three array jobs, merged: the same document as one run
sweep='{"system":{"gpus":64},"search":{"recompute":"none"},"sweep":{"memory_gib":[40,80],"slow_gbit_per_s":[100,200,400]}}'
echo "$sweep" | "$cli" sweep - > /tmp/tp_smoke.$$.whole && ok || bad "sweep"
for i in 0 1 2; do echo "$sweep" | "$cli" sweep - --shard $i/3 > /tmp/tp_smoke.$$.$i || bad "sweep --shard $i/3"; done
"$cli" sweep --merge /tmp/tp_smoke.$$.2 /tmp/tp_smoke.$$.0 /tmp/tp_smoke.$$.1 > /tmp/tp_smoke.$$.merged \
  && cmp -s /tmp/tp_smoke.$$.whole /tmp/tp_smoke.$$.merged && ok || bad "sweep --merge gives the whole sweep"
grep -c '"index"' /tmp/tp_smoke.$$.whole | grep -qx 7 && ok || bad "sweep: 6 points and the shard"
"$cli" sweep --merge /tmp/tp_smoke.$$.0 /tmp/tp_smoke.$$.1 2> /tmp/tp_smoke.$$ > /dev/null
[ $? -eq 2 ] && grep -q 'shard: output 1 is a shard of 3, but 2 outputs were given' /tmp/tp_smoke.$$ \
  && ok || bad "sweep --merge with a shard missing"
echo "$sweep" | "$cli" sweep - --shard 3/3 2> /tmp/tp_smoke.$$ > /dev/null
[ $? -eq 2 ] && ok || bad "sweep --shard out of range"
rm -f /tmp/tp_smoke.$$.whole /tmp/tp_smoke.$$.merged /tmp/tp_smoke.$$.0 /tmp/tp_smoke.$$.1 /tmp/tp_smoke.$$.2

# shard numbers are checked before any conversion: 2^32 must not wrap to 0
echo "$sweep" | "$cli" sweep - --shard 4294967296/1 2> /tmp/tp_smoke.$$ > /dev/null
[ $? -eq 2 ] && grep -q 'takes i/n' /tmp/tp_smoke.$$ && ok || bad "sweep --shard 2^32/1 refused"
# an input over the size limit is refused input: exit 2, like any other
head -c 1100000 /dev/zero | tr '\0' ' ' | "$cli" estimate - 2> /tmp/tp_smoke.$$ > /dev/null
[ $? -eq 2 ] && grep -q 'larger than 1048576 bytes' /tmp/tp_smoke.$$ && ok || bad "exit status 2 for an input too large"
# a control character in a name is refused, never echoed to a terminal
printf '{"model":{"preset":"llama-3.1-8b","name":"\\u001b[31mred"}}' | "$cli" estimate --table 2> /tmp/tp_smoke.$$ > /dev/null
[ $? -eq 2 ] && grep -q 'model.name: must be printable text' /tmp/tp_smoke.$$ && ok || bad "control characters in a name refused"

# calibrate: runs in, fitted parameters and a system section out; a
# run on another GPU refused by name
runs='{"runs":[{"name":"a","config":{"training":{"global_batch":64}},"measured":{"step_s":6}},
{"config":{"system":{"gpus":16},"training":{"global_batch":128,"seq_len":4096}},"measured":{"tokens_per_s_per_gpu":9000}},
{"config":{"parallel":{"tp":2},"training":{"global_batch":32}},"measured":{"mfu":0.4}}],"fit":["matmul_efficiency","step_overhead_s"]}'
echo "$runs" | "$cli" calibrate - > /tmp/tp_smoke.$$ && grep -q '"error_left_out"' /tmp/tp_smoke.$$ \
  && grep -q '"matmul_efficiency"' /tmp/tp_smoke.$$ && ok || bad "calibrate"
echo '{"runs":[{"config":{},"measured":{"step_s":6}},{"config":{"system":{"gpu":"a100-80gb"}},"measured":{"step_s":6}}]}' \
  | "$cli" calibrate - 2> /tmp/tp_smoke.$$ > /dev/null
[ $? -eq 2 ] && grep -q "runs\[1\].config.system.gpu: differs from runs\[0\]'s" /tmp/tp_smoke.$$ && ok \
  || bad "calibrate: a run on another GPU refused by name"
# three runs of Chen et al. 2023's A800 cluster with a prior: the fit
# crawls along a flat valley and stops where it stalls, not at 200
# iterations with an error
"$cli" calibrate "$(dirname "$0")/calibrate_slow_valley.json" > /tmp/tp_smoke.$$ \
  && grep -q '"error_left_out"' /tmp/tp_smoke.$$ && ok || bad "calibrate: a slow valley converges"
# eight runs of NeMo's Llama 3 8B on B200 at 8K to 1M tokens: without a
# prior the fit drifts for hundreds of steps (attention efficiency against
# the per-step overhead) while the runs' RMS error moves under 0.01%
"$cli" calibrate "$(dirname "$0")/calibrate_long_valley.json" > /tmp/tp_smoke.$$ \
  && grep -q '"error_left_out"' /tmp/tp_smoke.$$ && ok || bad "calibrate: a long valley converges"
# three runs of OLMo-core's table whose left-out gains are +3.4, -1.6 and
# +3.1 points: a mean of one standard error, not two, so the fit is noise
# and the matmul efficiency goes back to its default
"$cli" calibrate "$(dirname "$0")/calibrate_three_noisy.json" > /tmp/tp_smoke.$$ \
  && tr -d ' \t\n' < /tmp/tp_smoke.$$ | grep -q '"name":"system.gpu.matmul_efficiency","default":0.63,"fitted":0.63,' \
  && ok || bad "calibrate: a fit within two standard errors of its noise is set back"

# calibrate-log: a log excerpt in, a run's "measured" out; no step line
# refused under "log"
printf 'step: 1  loss: 9.1  memory: 60.00GiB(75.00%%)  tps: 5,000  tflops: 300.0  mfu: 30.0%%\nstep: 10  loss: 8.1  memory: 61.20GiB(77.30%%)  tps: 5,762  tflops: 330.2  mfu: 33.4%%\n' \
  | "$cli" calibrate-log - > /tmp/tp_smoke.$$ && grep -q '"tokens_per_s_per_gpu":.5762' /tmp/tp_smoke.$$ \
  && grep -q '"trainer":.*"torchtitan"' /tmp/tp_smoke.$$ && ok || bad "calibrate-log"
echo 'nothing to read' | "$cli" calibrate-log - 2> /tmp/tp_smoke.$$ > /dev/null
[ $? -eq 2 ] && grep -q 'log: no step line of Megatron-LM, NeMo, torchtitan or llm-foundry found' /tmp/tp_smoke.$$ \
  && ok || bad "calibrate-log: a log of no trainer refused"

"$cli" presets --table | grep -q 'llama-3.1-405b' && ok || bad "presets --table"
"$cli" presets --table | grep -Eq '^gb200-nvl72 +gb200 +72 ' && ok || bad "presets --table lists clusters"
"$cli" bogus > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "unknown command"
rm -f /tmp/tp_smoke.$$
echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
