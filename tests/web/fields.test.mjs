// The page's config builder (web/src/fields.js) leaves out capacity factor,
// loader mask, loader rate, host overhead, the layers full recompute
// re-runs and the layers offloaded to the host while they are at their defaults, so a config
// stays as it was before those fields existed and the core's own defaults
// apply: the defaults the form shows must be the core's, or the page would
// show one value and estimate with another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliEstimate } from '../helpers.mjs';
import { FIELDS, defaultInputs, toConfig } from '../../web/src/fields.js';

const at = (doc, path) => path.split('.').reduce((o, k) => o?.[k], doc);
const OMITTED_AT_DEFAULT = ['cf', 'dlmask', 'loader', 'overhead', 'rclayers', 'offload'];

test('the fields sent only when changed show the core\'s own defaults', () => {
  const sent = toConfig(defaultInputs());
  const resolved = cliEstimate(sent).config;
  for (const key of OMITTED_AT_DEFAULT) {
    const f = FIELDS.find((x) => x.key === key);
    assert.equal(at(sent, f.path), undefined, `${key} is left out at its default`);
    const shown = f.kind === 'bool' ? f.default === '1' : Number(f.default);
    // the core echoes the offloaded layers only when there are some
    const echoed = key === 'offload' ? at(resolved, f.path) ?? 0 : at(resolved, f.path);
    assert.equal(echoed, shown, `${key}: the form shows ${f.default}`);
  }
  const changed = toConfig({ ...defaultInputs(), cf: '1.5', dlmask: '1', loader: '2', overhead: '0.25',
    recompute: 'full', rclayers: '3', offload: '4' });
  assert.deepEqual(OMITTED_AT_DEFAULT.map((key) => at(changed, FIELDS.find((x) => x.key === key).path)),
    [1.5, true, 2, 0.25, 3, 4]);
  // fp8 weights go only with fp8 compute, where the core accepts them
  assert.equal(at(sent, 'training.precision.fp8_params'), undefined);
  assert.equal(at(toConfig({ ...defaultInputs(), fp8p: '1' }), 'training.precision.fp8_params'), undefined);
  const fp8 = toConfig({ ...defaultInputs(), fp8: '1', fp8p: '1' });
  assert.equal(at(fp8, 'training.precision.fp8_params'), true);
  assert.equal(cliEstimate(fp8).memory.bytes_per_param.weights, 1);
  // the layers to recompute go only with full recompute, where the core accepts them
  assert.equal(at(toConfig({ ...defaultInputs(), recompute: 'selective', rclayers: '3' }),
    'training.recompute_layers'), undefined);
});

test('the first and last stages\' layers go only where given, and an applied search plan clears them', async () => {
  const { withPlan } = await import('../../web/src/fields.js');
  const sent = toConfig(defaultInputs());
  assert.equal(sent.parallel.first_stage_layers, undefined);
  assert.equal(sent.parallel.last_stage_layers, undefined);
  for (const key of ['fsl', 'lsl']) assert.equal(FIELDS.find((x) => x.key === key).default, '0');
  const given = toConfig({ ...defaultInputs(), gpus: '24', pp: '3', fsl: '10', lsl: '10' });
  assert.equal(given.parallel.first_stage_layers, 10);
  assert.equal(given.parallel.last_stage_layers, 10);
  assert.deepEqual(cliEstimate(given).memory.stages.map((s) => s.layers), [10, 12, 10]);
  const plan = { tp: 1, pp: 2, cp: 1, micro_batch: 1, sp: true, recompute: 'none', schedule: '1f1b',
    order: 'tp-cp-dp-pp', sharding: 'zero1' };
  const applied = withPlan({ ...defaultInputs(), fsl: '10', lsl: '10' }, plan);
  assert.equal(applied.fsl, '0');
  assert.equal(applied.lsl, '0');
});
