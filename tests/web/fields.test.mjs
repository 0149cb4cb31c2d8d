// The page's config builder (web/src/fields.js) leaves out capacity factor,
// loader mask, loader rate, host overhead, the layers full recompute
// re-runs and the layers offloaded to the host while they are at their defaults, so a config
// stays as it was before those fields existed and the core's own defaults
// apply: the defaults the form shows must be the core's, or the page would
// show one value and estimate with another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { CLI, cliEstimate, cliSearch } from '../helpers.mjs';
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

test('numbers are read as people type them: 1e12, 2T, 8k, 1.5M, 2B on counts', async () => {
  const { readNumber, fieldProblem } = await import('../../web/src/fields.js');
  const field = (key) => FIELDS.find((f) => f.key === key);
  const read = (key, text) => readNumber(field(key), text).value;
  assert.equal(read('tokens', '1e12'), 1e12);
  assert.equal(read('tokens', '2T'), 2e12);
  assert.equal(read('gbs', '8k'), 8000);
  assert.equal(read('gbs', '8K'), 8000);
  assert.equal(read('tokens', '1.5M'), 1.5e6);
  assert.equal(read('tokens', '2B'), 2e9);
  assert.equal(read('gpus', '1.1k'), 1100); // exactly, not 1100.0000000000002
  assert.equal(read('loader', '2.5e-1'), 0.25);
  assert.equal(read('layers', ''), null); // an empty optional field keeps the preset's
  const sent = toConfig({ ...defaultInputs(), tokens: '2T', seq: '8k', gbs: '2k', gpus: '1k', loader: '5e-1' });
  assert.deepEqual([sent.training.train_tokens, sent.training.seq_len, sent.training.global_batch, sent.system.gpus,
    sent.system.loader_gb_per_s], [2e12, 8000, 2000, 1000, 0.5]);
  assert.equal(cliEstimate(sent).config.training.train_tokens, 2e12);
  // messages name the text typed and the range in the field's unit, readably
  assert.equal(fieldProblem(field('gpus'), '-8'), '-8 GPUs is out of range (from 1 GPU to 10 million GPUs)');
  assert.equal(fieldProblem(field('gpus'), '1.5'), '"1.5" is not a whole number of GPUs (from 1 GPU to 10 million GPUs)');
  assert.equal(fieldProblem(field('loader'), '1e20'), '1e20 GB/s is out of range (from 0.001 GB/s to 1 million GB/s)');
  assert.equal(fieldProblem(field('tokens'), 'lots'),
    '"lots" is not a number; write it as 8192, 8k, 1.5M, 2B or 1e12 (from 1 token to 1×10¹⁸ tokens)');
  // suffixes are for counts: a data rate of "2k" is refused, not read as 2000 GB/s
  assert.match(fieldProblem(field('loader'), '2k'), /^"2k" is not a number; write it as 0.5 or 1e-3/);
  assert.match(fieldProblem(field('layers'), '2k'), /^"2k" is not a number/);
  // a number out of range still goes to the core, which refuses it at its path
  assert.equal(toConfig({ ...defaultInputs(), gpus: '-8' }).system.gpus, -8);
});

test('a core error marks the field at its path and every field its rule names', async () => {
  const { errorFields, describeError } = await import('../../web/src/fields.js');
  const wrong = (inputs) => {
    try { cliEstimate(toConfig({ ...defaultInputs(), ...inputs })); } catch (e) {
      const [, path, message] = /^([a-z_.]+): (.*)$/.exec(e.message);
      return { path, message };
    }
    return null;
  };
  // a micro-batch that does not divide the batch marks Micro-batch as well as Global batch
  const batch = wrong({ mbs: '3' });
  assert.equal(batch.path, 'training.global_batch');
  assert.deepEqual(errorFields(batch), ['gbs', 'mbs']);
  assert.deepEqual(errorFields(wrong({ tp: '3' })), ['heads', 'tp']);
  assert.deepEqual(errorFields(wrong({ gpus: '12', tp: '8' })), ['gpus', 'tp', 'pp', 'cp']);
  // the core's message for a number out of range becomes the page's, in the field's unit
  const gpus = wrong({ gpus: '-8' });
  assert.equal(describeError(gpus, { ...defaultInputs(), gpus: '-8' }).message,
    '-8 GPUs is out of range (from 1 GPU to 10 million GPUs)');
  assert.equal(describeError(batch, { ...defaultInputs(), mbs: '3' }), batch);
});

// NVFP4, the recompute modules and the experts' all-to-all overlap go only
// where the core accepts them, and the core takes them as sent.
test('fp4, recompute modules and expert overlap are sent where they apply', () => {
  const base = defaultInputs();
  assert.equal(at(toConfig({ ...base, fp4: '1' }), 'training.precision.fp4'), undefined);
  const blackwell = toConfig({ ...base, gpu: 'gb200', cluster: 'gb200-nvl72', fp8: '1', fp4: '1' });
  assert.equal(at(blackwell, 'training.precision.fp4'), true);
  assert.equal(cliEstimate(blackwell).config.training.precision.fp4, true);
  const modules = toConfig({ ...base, recompute: 'selective', rcmlp: '1', rcnorm: '1' });
  assert.equal(at(modules, 'training.recompute_mlp'), true);
  assert.equal(at(modules, 'training.recompute_norms'), true);
  const plain = cliEstimate(toConfig({ ...base, recompute: 'selective' }));
  assert.ok(cliEstimate(modules).memory.peak_bytes < plain.memory.peak_bytes);
  assert.equal(at(toConfig({ ...base, recompute: 'full', rcmlp: '1' }), 'training.recompute_mlp'), undefined);
  assert.equal(at(toConfig({ ...base, epo: '1' }), 'parallel.ep_overlap'), undefined);
  const moe = toConfig({ ...base, model: 'mixtral-8x7b', gpus: '64', tp: '2', ep: '8', epo: '1' });
  assert.equal(at(moe, 'parallel.ep_overlap'), true);
  assert.equal(cliEstimate(moe).config.parallel.ep_overlap, true);
});

test('the overlap switches and the fp8 scaling are sent, and change the estimate', () => {
  const base = { ...defaultInputs(), model: 'llama-3.1-70b', gpus: '64', tp: '8' };
  // TP overlap: hidden tensor-parallel collectives make the step shorter
  const tpo = toConfig({ ...base, tpo: '1' });
  assert.equal(at(tpo, 'parallel.tp_overlap'), true);
  assert.ok(cliEstimate(tpo).time.tp_comm_s < cliEstimate(toConfig(base)).time.tp_comm_s);
  // CP ring overlap: on by default, sent only where cp > 1 and turned off
  assert.equal(at(toConfig({ ...base, cpo: '0' }), 'parallel.cp_overlap'), undefined);
  const cp = { ...base, cp: '2', seq: '32768', gbs: '32' };
  const exposed = toConfig({ ...cp, cpo: '0' });
  assert.equal(at(exposed, 'parallel.cp_overlap'), false);
  assert.ok(cliEstimate(exposed).time.cp_comm_s > cliEstimate(toConfig(cp)).time.cp_comm_s);
  // fp8 scaling: the framework's default unless chosen, and only with fp8
  const fp8 = { ...base, fp8: '1' };
  assert.equal(at(toConfig(fp8), 'training.precision.fp8_recipe'), undefined);
  assert.equal(cliEstimate(toConfig(fp8)).config.training.precision.fp8_recipe, 'delayed');
  assert.equal(at(toConfig({ ...base, fp8r: 'blockwise' }), 'training.precision.fp8_recipe'), undefined);
  const blockwise = toConfig({ ...fp8, fp8r: 'blockwise' });
  assert.equal(at(blockwise, 'training.precision.fp8_recipe'), 'blockwise');
  assert.ok(cliEstimate(blockwise).time.compute_s > cliEstimate(toConfig(fp8)).time.compute_s);
  // attention kernel: the framework's unless chosen, and only with FlashAttention
  const foundry = { ...base, fw: 'llm-foundry' };
  assert.equal(at(toConfig(base), 'training.framework'), undefined);
  assert.equal(at(toConfig(foundry), 'training.framework'), 'llm-foundry');
  assert.equal(at(toConfig(foundry), 'training.attention_kernel'), undefined);
  assert.equal(cliEstimate(toConfig(foundry)).config.training.attention_kernel, 'triton');
  const flash2 = toConfig({ ...foundry, attk: 'flash' });
  assert.equal(at(flash2, 'training.attention_kernel'), 'flash');
  assert.ok(cliEstimate(flash2).time.compute_s < cliEstimate(toConfig(foundry)).time.compute_s);
  assert.equal(at(toConfig({ ...foundry, flash: '0', attk: 'flash' }), 'training.attention_kernel'), undefined);
  assert.equal(cliEstimate(toConfig(base)).config.training.attention_kernel, 'cudnn');
  // fp8 cast kernels: the framework's unless chosen, and only with fp8
  const titan = { ...base, fw: 'torchtitan', fp8: '1' };
  assert.equal(cliEstimate(toConfig(titan)).config.training.precision.fp8_casts, 'compiled');
  const fused = toConfig({ ...titan, fp8c: 'fused' });
  assert.equal(at(fused, 'training.precision.fp8_casts'), 'fused');
  assert.ok(cliEstimate(fused).time.compute_s < cliEstimate(toConfig(titan)).time.compute_s);
  assert.equal(at(toConfig({ ...titan, fp8: '0', fp8c: 'fused' }), 'training.precision.fp8_casts'), undefined);
  // element-wise kernels: torchtitan eager unless chosen otherwise, and
  // eager moves more bytes than fused
  const eagerTitan = { ...base, fw: 'torchtitan' };
  assert.equal(at(toConfig(eagerTitan), 'training.eager'), undefined);
  assert.equal(cliEstimate(toConfig(eagerTitan)).config.training.eager, true);
  const compiled = toConfig({ ...eagerTitan, eager: 'fused' });
  assert.equal(at(compiled, 'training.eager'), false);
  assert.ok(cliEstimate(compiled).time.compute_s < cliEstimate(toConfig(eagerTitan)).time.compute_s);
  assert.equal(at(toConfig({ ...base, eager: 'eager' }), 'training.eager'), true);
  // expert GEMMs: Megatron-Core's one launch per local expert unless
  // grouped is chosen, which launches fewer kernels; CUDA graphs take the
  // host's dispatch off what they replay, the whole step's with full
  const moe = { ...base, model: 'mixtral-8x7b', gpus: '64', tp: '2', ep: '2' };
  assert.equal(at(toConfig(moe), 'training.grouped_gemm'), undefined);
  assert.equal(cliEstimate(toConfig(moe)).config.training.grouped_gemm, false);
  const grouped = toConfig({ ...moe, ggemm: 'grouped' });
  assert.equal(at(grouped, 'training.grouped_gemm'), true);
  assert.ok(cliEstimate(grouped).time.compute_s < cliEstimate(toConfig(moe)).time.compute_s);
  assert.equal(at(toConfig(moe), 'training.cuda_graphs'), undefined);
  const full = cliEstimate(toConfig({ ...moe, cgraph: 'full' }));
  const layers = cliEstimate(toConfig({ ...moe, cgraph: 'layers' }));
  assert.ok(full.time.compute_s < layers.time.compute_s);
  assert.ok(layers.time.compute_s < cliEstimate(toConfig(moe)).time.compute_s);
  assert.equal(full.time.step_overhead_s, 0);
  assert.equal(layers.time.step_overhead_s, 0.1);
});

// A custom GPU and network: the fields set go over the presets, and the
// core estimates with them (a smaller memory raises the usage by as much).
test('custom hardware goes over the GPU and cluster presets', () => {
  const base = { ...defaultInputs(), cluster: 'dgx-h100' };
  assert.equal(at(toConfig(base), 'system.gpu.preset'), undefined);
  const custom = toConfig({ ...base, gmem: '40', gf4: '3958', nslow: '200' });
  assert.deepEqual(custom.system.gpu, { preset: 'h100-80gb', memory_gib: 40, fp4_tflops: 3958 });
  assert.deepEqual(custom.system.network, { preset: 'dgx-h100', slow_gbit_per_s: 200 });
  const out = cliEstimate(custom);
  assert.equal(out.config.system.gpu.memory_gib, 40);
  assert.equal(out.config.system.network.slow_gbit_per_s, 200);
  const plain = cliEstimate(toConfig(base));
  assert.ok(Math.abs(out.memory.usage_fraction / plain.memory.usage_fraction - 81559 / (40 * 1024)) < 1e-9);
  // the network of a cluster only: without one the GPU's own fields describe it
  assert.equal(toConfig({ ...defaultInputs(), nslow: '200' }).system.network, undefined);
});

test('"Try fp8" asks the search for both precisions on an FP8 GPU, and Apply sets fp8 from the plan', async () => {
  const { applies, toSearchDocument, withPlan } = await import('../../web/src/fields.js');
  const presets = JSON.parse(execFileSync(CLI, ['presets']).toString());
  const field = FIELDS.find((f) => f.key === 'sfp8');
  assert.equal(field.group, 'Search');
  assert.equal(field.default, '0');
  const h100 = { ...defaultInputs(), gpu: 'h100-80gb', gpus: '16', gbs: '64', sgpus: '' };
  // off by default: the search keeps the config's own precision
  assert.equal(toSearchDocument(h100, presets).search.precision, undefined);
  const asked = toSearchDocument({ ...h100, sfp8: '1' }, presets);
  assert.deepEqual(asked.search.precision, ['bf16', 'fp8']);
  assert.equal(applies(field, h100, presets), true);
  // the core runs it, and its best plan on H100s is fp8
  const best = cliSearch(asked).plans[0].plan;
  assert.equal(best.fp8, true);
  const applied = withPlan(h100, best);
  assert.equal(applied.fp8, '1');
  assert.equal(toConfig(applied).training.precision.fp8, true);
  assert.equal(withPlan({ ...h100, fp8: '1' }, { ...best, fp8: false }).fp8, '0');
  // no FP8 tensor cores (an A100, or a custom FP8 peak of 0): never sent, the box dimmed
  const a100 = { ...h100, gpu: 'a100-80gb', sfp8: '1' };
  assert.equal(toSearchDocument(a100, presets).search.precision, undefined);
  assert.equal(applies(field, a100, presets), false);
  assert.equal(toSearchDocument({ ...h100, sfp8: '1', gf8: '0' }, presets).search.precision, undefined);
  // before the presets load, nothing is sent that the core might refuse
  assert.equal(toSearchDocument({ ...h100, sfp8: '1' }).search.precision, undefined);
});
