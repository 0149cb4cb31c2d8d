// The explanations (web/src/explain.js) put the CLI's own figures into the
// formula they show, and the formula gives the number it explains, for
// plans that exercise sharding, pipeline stages and recompute. Activations
// and "other" are sums the core reports item by item: their explanations
// list the inputs and cite the equations, and are not recomputed here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliEstimate } from '../helpers.mjs';
import { explanations } from '../../web/src/explain.js';

const CONFIGS = [
  { model: { preset: 'llama-3.1-8b' }, system: { gpu: 'h100-80gb', gpus: 64 }, training: { seq_len: 8192, global_batch: 1024 },
    parallel: { tp: 2, pp: 2 } },
  { model: { preset: 'llama-3.1-70b' }, system: { gpu: 'a100-80gb', gpus: 256 }, training: { seq_len: 4096, global_batch: 512,
    recompute: 'full', train_tokens: 2e12 }, parallel: { tp: 8, pp: 4, schedule: 'interleaved', virtual_stages: 5, sharding: 'zero', zero: 2 } },
  { model: { preset: 'gpt3-175b' }, system: { gpu: 'h100-80gb', gpus: 512 }, training: { seq_len: 2048, global_batch: 1536 },
    parallel: { tp: 8, pp: 8, sharding: 'fsdp_hybrid_shard' } },
];

const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.abs(b);

test('each formula, fed the values it lists, gives the figure it explains', () => {
  for (const config of CONFIGS) {
    const result = cliEstimate(config);
    const how = explanations(result);
    const stage = result.memory.stages.find((s) => s.name === result.memory.peak_stage);
    for (const key of ['weights_bytes', 'gradients_bytes', 'optimizer_bytes']) {
      assert.equal(how[key].value, stage[key], `${config.model.preset} ${key}`);
    }
    assert.ok(close(how.other_bytes.value, stage.other_bytes));
    assert.ok(close(how.step_s.value, result.time.step_s), 'the step is the sum of its parts');
    for (const key of ['tokens_per_s_per_gpu', 'mfu', 'time_to_train_days']) {
      assert.ok(close(how[key].value, result.throughput[key]), `${config.model.preset} ${key}`);
    }
    for (const what of Object.values(how)) {
      assert.ok(close(what.value, what.reported), `${what.title}: the formula gives the figure shown`);
      assert.ok(what.cite.length > 0 && what.values.every(([, , v]) => Number.isFinite(v)), what.title);
    }
  }
});
