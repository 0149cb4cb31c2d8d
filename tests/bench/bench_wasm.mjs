// bench_wasm.mjs: the same cases as bench.c, through the release
// WebAssembly core in Node (V8, as in Chromium), JSON in and out as the page
// calls it. Prints figures, never fails on timing.
//   node tests/bench/bench_wasm.mjs
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT, loadWasm } from '../helpers.mjs';

const RUNS = 7;
const cases = JSON.parse(readFileSync(join(ROOT, 'tests', 'bench', 'cases.json'), 'utf8'));
const tp = await loadWasm();

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

console.log(`trainplan ${tp.version()} WebAssembly benchmark (Node ${process.version}, one thread)`);
{
  const n = 20000;
  tp.estimate(cases.estimate);
  const start = performance.now();
  for (let i = 0; i < n; i++) tp.estimate(cases.estimate);
  const ms = performance.now() - start;
  console.log(`estimate through JSON: ${(n / ms).toFixed(1)} k estimates/s, ${(1000 * ms / n).toFixed(1)} us each`);
}
for (const [name, doc] of Object.entries(cases.searches)) {
  const times = [];
  let result;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    result = tp.search(doc);
    times.push(performance.now() - start);
  }
  const ms = median(times);
  const c = result.counts;
  const models = c.memory_evaluations + c.time_evaluations;
  console.log(`search ${name.padEnd(24)} ${ms.toFixed(1).padStart(6)} ms (median of ${RUNS}, min ${Math.min(...times).toFixed(1)})` +
    `  ${c.candidates} plans  ${models} models (${(models / ms / 1000).toFixed(2)} M/s)`);
}
{
  // Calibrating 20 runs as the page's Calibrate panel does: Llama 3.1 8B
  // and 70B plans on DGX H100 nodes, measured by the core itself with a
  // slower GEMM (0.55 of the peak), every parameter fitted, leave-one-out
  // refits included.
  const runs = [];
  for (let i = 0; i < 20; i++) {
    const big = i % 2 === 1;
    const config = {
      model: { preset: big ? 'llama-3.1-70b' : 'llama-3.1-8b' },
      system: { cluster: 'dgx-h100', gpus: big ? 64 : 8 * [1, 2, 4, 8][i % 4] },
      training: { seq_len: [2048, 4096, 8192][i % 3], global_batch: 256, micro_batch: 1 },
      parallel: { tp: big ? 8 : [1, 2][i % 2], pp: big ? 2 : 1 },
    };
    const slow = JSON.parse(JSON.stringify(config));
    slow.system.gpu = { preset: 'h100-80gb', matmul_efficiency: 0.55 };
    runs.push({ name: `run ${i}`, config, measured: { step_s: tp.estimate(slow).time.step_s } });
  }
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    tp.calibrate({ runs });
    times.push(performance.now() - start);
  }
  console.log(`calibrate 20 runs (leave-one-out included): ${median(times).toFixed(1)} ms (median of ${RUNS})`);
}
