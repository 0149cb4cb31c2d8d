// The WebAssembly core gives exactly the native CLI's numbers (which
// test_fujii_memory checks against the paper) on all 454 Fujii et al. 2024
// cells, reports errors with path and reason, and an error does not poison the
// calls after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { CLI, ROOT, cliCalibrate, cliEstimate, cliSearch, cliSweep, loadWasm, seed003Configs } from '../helpers.mjs';

const tp = await loadWasm();

test('wasm matches the native CLI on every Fujii et al. 2024 cell', () => {
  const configs = seed003Configs();
  assert.equal(configs.length, 454);
  for (const config of configs) {
    const native = cliEstimate(config);
    const wasm = tp.estimate(config);
    assert.deepEqual(wasm.memory, native.memory, JSON.stringify(config));
    assert.equal(wasm.params.total, native.params.total);
  }
});

test('wasm reports the field and the reason, then keeps working', () => {
  assert.throws(() => tp.estimate({ parallel: { tp: 3 } }),
    (e) => e.name === 'TrainplanError' && e.path === 'parallel.tp' && e.reason === '3 does not divide model.heads=32');
  assert.throws(() => tp.estimate('{"model":'), (e) => e.status === 'parse' && /not valid JSON/.test(e.reason));
  const after = tp.estimate({ parallel: { tp: 2 } });
  assert.equal(after.plan.tp, 2);
  assert.equal(after.memory.zone, 'green');
});

test('wasm presets and version match the CLI', () => {
  assert.equal(tp.version(), '0.1.0');
  const names = tp.presets().models.map((m) => m.name);
  assert.ok(names.includes('llama-3.1-405b') && names.includes('qwen2.5-72b'));
  assert.equal(tp.presets().gpus.length, 19);
});

test('wasm search gives the native CLI\'s plans, front, counts and scaling', () => {
  const doc = {
    model: { preset: 'llama-3.1-70b' },
    system: { cluster: 'dgx-h100', gpus: 512 },
    search: { top: 5, sharding: ['zero1', 'zero3', 'amsp'], gpus: [128, 256] },
  };
  const wasm = tp.search(doc);
  const native = cliSearch(doc);
  assert.deepEqual(wasm.counts, native.counts);
  assert.deepEqual(wasm.plans, native.plans);
  assert.deepEqual(wasm.pareto, native.pareto);
  assert.deepEqual(wasm.explain, native.explain);
  assert.deepEqual(wasm.scaling, native.scaling);
  assert.equal(wasm.plans.length, 5);
  assert.ok(wasm.counts.fit > 0 && wasm.min_gpus > 0);
});

test('a search split over separate module instances and merged in another is the whole search', async () => {
  const doc = {
    model: { preset: 'llama-3.1-70b' },
    system: { cluster: 'dgx-h100', gpus: 256 },
    search: { top: 8, sharding: ['zero1', 'zero3', 'amsp'], gpus: [64] },
  };
  const whole = tp.search(doc);
  const workers = [tp, await loadWasm(), await loadWasm()]; // each its own memory, as web workers have
  const parts = [0, 1, 2, 3, 4].map((k) => workers[k % 3].searchPart(doc, k, 5));
  parts.forEach((p, k) => assert.deepEqual([p.info.part, p.info.parts], [k, 5]));
  assert.equal(parts.reduce((n, p) => n + p.info.counts.candidates, 0), whole.counts.candidates);
  assert.ok(parts.every((p) => p.info.counts.candidates < whole.counts.candidates));
  const merged = workers[2].searchMerge(doc, parts.map((p) => p.bytes));
  assert.deepEqual(merged, whole);
  assert.throws(() => tp.searchPart(doc, 5, 5), (e) => e.path === 'part');
  assert.throws(() => tp.searchMerge(doc, [new Uint8Array(7)]), (e) => e.path === 'parts');
});

test('a wasm sweep is the CLI\'s, whole or in shards merged in another instance', async () => {
  const doc = {
    model: { preset: 'gpt3-175b' },
    system: { cluster: 'lbnl-b200', gpus: 512 },
    training: { seq_len: 2048, global_batch: 1024 },
    search: { recompute: ['none'], virtual_stages: 1 },
    sweep: { tensor_tflops: [990, 2500], memory_gib: [8, 80, 192] },
  };
  const whole = tp.sweep(doc);
  assert.deepEqual(whole, cliSweep(doc));
  assert.equal(whole.points.length, 6);
  assert.ok(whole.points.some((p) => !p.fits) && whole.points.some((p) => p.fits));
  const other = await loadWasm();
  const shards = [tp.sweep(doc, 0, 3), other.sweep(doc, 1, 3), tp.sweep(doc, 2, 3)];
  assert.deepEqual(shards[1], cliSweep(doc, '--shard', '1/3'));
  assert.deepEqual(other.sweepMerge([shards[2], JSON.stringify(shards[0]), shards[1]]), whole);
  assert.throws(() => tp.sweepMerge([shards[0], shards[0], shards[1]]), (e) => e.path === 'shard');
  assert.throws(() => tp.sweepMerge([]), (e) => e.path === 'shard');
  assert.throws(() => tp.sweep({ ...doc, sweep: { memory_gib: [-1] } }), (e) => e.path === 'sweep.memory_gib');
});

test('wasm search reports the field and the reason', () => {
  assert.throws(() => tp.search({ search: { sharding: ['zero1', 'zero7'] } }),
    (e) => e.name === 'TrainplanError' && e.path === 'search.sharding[1]' && /must be one of/.test(e.reason));
  assert.equal(tp.search({ search: { top: 1 } }).plans.length, 1);
});

// The instrument behind the browser's 10,000-call memory test
// (tests/e2e/wasm_memory.test.mjs): the allocator's bytes in use see a block
// the module holds, and go back to where they were once it is freed.
test('the core reports the allocator\'s bytes in use, so a leak would show', async () => {
  const require = createRequire(import.meta.url);
  const createTrainplan = require(join(ROOT, 'wasm', 'out', 'trainplan-core.js'));
  const Module = await createTrainplan({ wasmBinary: readFileSync(join(ROOT, 'wasm', 'out', 'trainplan-core.wasm')) });
  const idle = Module._tp_wasm_heap_in_use();
  const held = Module._malloc(1000);
  assert.ok(Module._tp_wasm_heap_in_use() >= idle + 1000);
  Module._free(held);
  assert.equal(Module._tp_wasm_heap_in_use(), idle);
  assert.deepEqual(Object.keys(tp.memory()), ['inUseBytes', 'heapBytes']);
});

test('wasm calibrateLog reads a log as the CLI does and names "log" when it cannot', () => {
  for (const name of ['log-torchtitan.log', 'log-megatron.log', 'log-nemo.log', 'log-composer.log']) {
    const text = readFileSync(join(ROOT, 'tests', 'fuzz', 'corpus', name), 'utf8');
    const native = JSON.parse(execFileSync(CLI, ['calibrate-log', '-'], { input: text }).toString());
    assert.deepEqual(tp.calibrateLog(text), native, name);
  }
  const titan = tp.calibrateLog(readFileSync(join(ROOT, 'tests', 'fuzz', 'corpus', 'log-torchtitan.log'), 'utf8'));
  assert.equal(titan.trainer, 'torchtitan');
  assert.deepEqual(Object.keys(titan.measured), ['tokens_per_s_per_gpu', 'peak_memory_gib', 'memory_kind']);
  assert.throws(() => tp.calibrateLog('loss went down'),
    (e) => e.path === 'log' && /no step line of Megatron-LM, NeMo, torchtitan or llm-foundry/.test(e.reason));
  assert.throws(() => tp.calibrateLog({}), (e) => e.path === 'log');
});

test('wasm calibrate gives the native fit and names a run on another cluster', () => {
  const run = (gpus, seq, step) => ({
    config: { system: { gpus }, training: { seq_len: seq, global_batch: 8 * gpus } },
    measured: { step_s: step },
  });
  const doc = { runs: [run(8, 4096, 3.1), run(16, 8192, 7.4), run(32, 2048, 1.9)], fit: ['matmul_efficiency', 'step_overhead_s'] };
  const out = tp.calibrate(doc);
  // the same fit to 1e-6: the last bits of log and pow may differ between
  // the native and the WebAssembly libm, and a fit that stops on a flat
  // floor carries such a difference into its 10th digit
  const near = (a, b) => (typeof a === 'number'
    ? Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b))
    : typeof a !== 'object' || a === null ? a === b
      : Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => near(a[k], b[k])));
  assert.ok(near(out, cliCalibrate(doc)), JSON.stringify(out));
  assert.equal(out.parameters.length, 9);
  assert.equal(out.runs.length, 3);
  assert.ok(Number.isFinite(out.error_left_out));
  assert.throws(() => tp.calibrate({ runs: [run(8, 4096, 3), { config: { system: { gpu: 'a100-80gb' } }, measured: { step_s: 5 } }] }),
    (e) => e.path === 'runs[1].config.system.gpu' && /one cluster/.test(e.reason));
});
