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
