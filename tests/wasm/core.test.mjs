// The WebAssembly core gives exactly the native CLI's numbers (which
// test_seed003_memory checks against the paper) on all 454 seed 003 cells,
// reports errors with path and reason, and an error does not poison the
// calls after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliEstimate, loadWasm, seed003Configs } from '../helpers.mjs';

const tp = await loadWasm();

test('wasm matches the native CLI on every seed 003 cell', () => {
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
  assert.equal(tp.presets().gpus.length, 8);
});
