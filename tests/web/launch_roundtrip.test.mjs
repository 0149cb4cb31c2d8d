// Launch settings read back (web/src/launch.js): each trainer's export,
// read by a parser of that trainer's format written apart from it
// (launch_formats.mjs), is the config that was estimated: the CLI's estimate
// of the config read back is the estimate exported, item for item. Every
// Megatron-LM argument and torchtitan field written exists in those
// trainers' sources (the fixtures, each with its commit). MoE presets export
// their experts and latent attention; dropout is set outright; a plan that
// does not fit says so in every format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cliEstimate } from '../helpers.mjs';
import { deepspeedConfig, fitWarning, megatronArgs, megatronMoeLayerFreq, torchtitanToml } from '../../web/src/launch.js';
import { configFromDeepspeed, configFromMegatron, configFromTorchtitan, evalLayerPattern, parseArgs, parseDeepspeed,
  parseToml } from './launch_formats.mjs';

const fixture = (name) => JSON.parse(readFileSync(join(ROOT, 'tests', 'web', 'fixtures', name), 'utf8'));
const MEGATRON = fixture('megatron-arguments.json');
const TORCHTITAN = fixture('torchtitan-job-config.json');

const H100 = { gpu: 'h100-80gb' };
const CASES = {
  'llama-3.1-70b, interleaved, ZeRO-1, full recompute': {
    model: { preset: 'llama-3.1-70b' }, system: { ...H100, gpus: 64 },
    training: { seq_len: 8192, global_batch: 1024, micro_batch: 1, recompute: 'full' },
    parallel: { tp: 8, pp: 4, schedule: 'interleaved', virtual_stages: 2, sharding: 'zero', zero: 1 },
  },
  'llama-3.1-405b, uneven stages, selective recompute, tp overlap': {
    model: { preset: 'llama-3.1-405b' }, system: { ...H100, gpus: 2048 },
    training: { seq_len: 8192, global_batch: 2048, micro_batch: 1, recompute: 'selective' },
    parallel: { tp: 8, pp: 16, tp_overlap: true },
  },
  'deepseek-v3: latent attention, 256 experts, ep 64, 3 dense layers': {
    model: { preset: 'deepseek-v3' }, system: { ...H100, gpus: 2048 },
    training: { seq_len: 4096, global_batch: 2048, micro_batch: 1, recompute: 'full' },
    parallel: { tp: 1, pp: 16, ep: 64 },
  },
  'mixtral-8x7b: top-2 of 8, ep 8, etp 2, fp8, ZeRO-3': {
    model: { preset: 'mixtral-8x7b' }, system: { ...H100, gpus: 64 },
    training: { seq_len: 4096, global_batch: 512, micro_batch: 1, precision: { fp8: true } },
    parallel: { tp: 2, ep: 8, sharding: 'zero', zero: 3 },
  },
  'mixtral-8x7b with every second layer MoE after one dense (Llama 4\'s interleaving)': {
    model: { preset: 'mixtral-8x7b', moe: { every: 2, first_dense: 1 } }, system: { ...H100, gpus: 64 },
    training: { seq_len: 4096, global_batch: 512, micro_batch: 1 },
    parallel: { tp: 1, pp: 2, ep: 8 },
  },
  'qwen3-30b-a3b: head_dim 128, full recompute of 12 layers': {
    model: { preset: 'qwen3-30b-a3b' }, system: { ...H100, gpus: 32 },
    training: { seq_len: 4096, global_batch: 256, micro_batch: 2, recompute: 'full', recompute_layers: 12 },
    parallel: { tp: 2, pp: 4, ep: 4 },
  },
  'gpt3-175b: dropout, learned positions, tied embeddings': {
    model: { preset: 'gpt3-175b' }, system: { ...H100, gpus: 1024 },
    training: { seq_len: 2048, global_batch: 1536, micro_batch: 1, recompute: 'selective' },
    parallel: { tp: 8, pp: 8 },
  },
};

/** The estimate of `doc` and the estimate of `read(export(doc))` agree. */
function assertRoundTrip(label, doc, write, read) {
  const estimate = cliEstimate(doc);
  const again = cliEstimate(read(write(estimate).text, estimate));
  assert.deepEqual(again.config.model, estimate.config.model, label);
  assert.deepEqual(again.plan, estimate.plan, label);
  assert.deepEqual(again.memory, estimate.memory, label);
  assert.deepEqual(again.time, estimate.time, label);
}

test('Megatron-LM arguments read back to the config estimated', () => {
  for (const [label, doc] of Object.entries(CASES)) assertRoundTrip(label, doc, megatronArgs, configFromMegatron);
  const offload = { model: { preset: 'llama-3.1-70b' }, system: { gpu: 'gb200', gpus: 64 },
    training: { seq_len: 8192, global_batch: 256, micro_batch: 1, offload_layers: 20, precision: { fp8: true, fp8_params: true } },
    parallel: { tp: 1, pp: 1, sharding: 'zero', zero: 1 } };
  assertRoundTrip('offload and fp8 weights', offload, megatronArgs, configFromMegatron);
  const modules = { ...CASES['deepseek-v3: latent attention, 256 experts, ep 64, 3 dense layers'],
    training: { seq_len: 4096, global_batch: 2048, micro_batch: 1, recompute: 'selective', recompute_mla_up_proj: true,
      recompute_moe_act: true, recompute_norms: true, precision: { fp8: true } },
    parallel: { tp: 1, pp: 16, ep: 64, ep_overlap: true } };
  assertRoundTrip('recompute modules, MoE all-to-alls overlapped', modules, megatronArgs, configFromMegatron);
  const mlpOnly = { ...CASES['llama-3.1-70b, interleaved, ZeRO-1, full recompute'],
    training: { seq_len: 8192, global_batch: 1024, micro_batch: 1, recompute: 'none', recompute_mlp: true, recompute_norms: true } };
  assertRoundTrip('the MLP and norms recomputed alone', mlpOnly, megatronArgs, configFromMegatron);
  const exposedSends = { ...mlpOnly, parallel: { ...mlpOnly.parallel, pp_overlap: false } };
  assert.equal(cliEstimate(exposedSends).config.parallel.pp_overlap, false);
  assertRoundTrip('interleaved sends not overlapped', exposedSends, megatronArgs, configFromMegatron);
  const nvfp4 = { ...offload, training: { seq_len: 8192, global_batch: 256, micro_batch: 1, precision: { fp8: true, fp4: true } } };
  assertRoundTrip('NVFP4', nvfp4, megatronArgs, configFromMegatron);
  const unfused = { ...CASES['qwen3-30b-a3b: head_dim 128, full recompute of 12 layers'],
    training: { seq_len: 4096, global_batch: 256, micro_batch: 2, framework: 'torchtitan' } };
  assert.equal(cliEstimate(unfused).config.training.fused_swiglu, false);
  assertRoundTrip('SwiGLU unfused (torchtitan\'s profile)', unfused, megatronArgs, configFromMegatron);
});

test('torchtitan TOML reads back to the config estimated', () => {
  const titan = (doc, parallel) => ({ ...doc, training: { ...doc.training, framework: 'torchtitan' }, parallel });
  const cases = {
    'llama-3.1-8b, full shard, tp 2, async tp': titan(CASES['llama-3.1-70b, interleaved, ZeRO-1, full recompute'],
      { tp: 2, sharding: 'fsdp_full_shard', tp_overlap: true }),
    'llama-3.1-70b, interleaved pp 4, shard grad op': titan(CASES['llama-3.1-70b, interleaved, ZeRO-1, full recompute'],
      { tp: 8, pp: 4, schedule: 'interleaved', virtual_stages: 2, sharding: 'fsdp_shard_grad_op' }),
    'llama-3.1-405b, uneven stages given outright, hybrid shard, compiled': {
      ...titan(CASES['llama-3.1-405b, uneven stages, selective recompute, tp overlap'],
        { tp: 4, pp: 8, schedule: 'interleaved', virtual_stages: 2, first_stage_layers: 14, last_stage_layers: 16,
          sharding: 'fsdp_hybrid_shard' }),
      training: { seq_len: 8192, global_batch: 2048, micro_batch: 1, framework: 'torchtitan', recompute: 'selective_op',
        eager: false },
    },
    'deepseek-v3, ep 64, full shard': titan(CASES['deepseek-v3: latent attention, 256 experts, ep 64, 3 dense layers'],
      { tp: 1, pp: 16, ep: 64, sharding: 'fsdp_full_shard' }),
    'mixtral-8x7b, MoE every second layer, zero 0': titan(
      CASES['mixtral-8x7b with every second layer MoE after one dense (Llama 4\'s interleaving)'],
      { tp: 1, pp: 2, ep: 8, sharding: 'zero', zero: 0 }),
    'qwen3-30b-a3b, ep 4 etp 2, fp8 weights': {
      ...titan(CASES['qwen3-30b-a3b: head_dim 128, full recompute of 12 layers'], { tp: 2, ep: 4, sharding: 'fsdp_full_shard' }),
      training: { seq_len: 4096, global_batch: 256, micro_batch: 2, framework: 'torchtitan', precision: { fp8: true, fp8_params: true } },
    },
  };
  for (const [label, doc] of Object.entries(cases)) assertRoundTrip(label, doc, torchtitanToml, configFromTorchtitan);
});

test('DeepSpeed config reads back to the config estimated', () => {
  const ds = (doc, parallel) => ({ ...doc, training: { ...doc.training, framework: 'deepspeed' }, parallel });
  const cases = {
    'llama-3.1-70b, pp 4, ZeRO-1': ds(CASES['llama-3.1-70b, interleaved, ZeRO-1, full recompute'],
      { tp: 8, pp: 4, sharding: 'zero', zero: 1 }),
    'llama-3.1-70b, ZeRO-3': ds(CASES['llama-3.1-70b, interleaved, ZeRO-1, full recompute'], { tp: 4, sharding: 'zero', zero: 3 }),
    'llama-3.1-70b, MiCS groups': ds(CASES['llama-3.1-70b, interleaved, ZeRO-1, full recompute'],
      { tp: 2, sharding: 'fsdp_hybrid_shard' }),
    'mixtral-8x7b, ep 8, ZeRO-2': ds(CASES['mixtral-8x7b: top-2 of 8, ep 8, etp 2, fp8, ZeRO-3'],
      { tp: 1, ep: 8, sharding: 'zero', zero: 2 }),
  };
  for (const [label, doc] of Object.entries(cases)) assertRoundTrip(label, doc, deepspeedConfig, configFromDeepspeed);
});

test('every Megatron-LM argument and torchtitan field written is in the trainer\'s source', () => {
  assert.match(MEGATRON.source, /^NVIDIA\/Megatron-LM [0-9a-f]{40} /);
  assert.match(TORCHTITAN.source, /^pytorch\/torchtitan [0-9a-f]{40} /);
  const used = new Set();
  const fields = {};
  for (const doc of Object.values(CASES)) {
    for (const framework of ['megatron-core', 'torchtitan']) {
      for (const shape of [doc.parallel, { ...doc.parallel, sharding: 'fsdp_hybrid_shard', zero: undefined }]) {
        const result = cliEstimate({ ...doc, training: { ...doc.training, framework }, parallel: shape });
        for (const flag of Object.keys(parseArgs(megatronArgs(result).text))) if (flag.startsWith('--')) used.add(flag);
        const toml = parseToml(torchtitanToml(result).text);
        for (const [section, pairs] of Object.entries(toml)) {
          if (section === 'comments' || section === '#') continue;
          for (const key of Object.keys(pairs)) (fields[section] ??= new Set()).add(key);
        }
      }
    }
  }
  assert.ok(used.size >= 50, `${used.size} arguments exercised`);
  for (const flag of used) assert.ok(MEGATRON.arguments[flag], `${flag} is not one of Megatron-LM's arguments`);
  // the launch code can write no argument the fixture does not hold either
  const source = readFileSync(join(ROOT, 'web', 'src', 'launch.js'), 'utf8');
  for (const [, flag] of source.matchAll(/add\('(--[a-z0-9-]+)'/g)) assert.ok(MEGATRON.arguments[flag], flag);
  for (const [section, keys] of Object.entries(fields)) {
    const known = TORCHTITAN.sections[section];
    assert.ok(known, `[${section}] is not a torchtitan job config section`);
    for (const key of keys) assert.ok(known.fields.includes(key), `${section}.${key} is not a torchtitan field`);
  }
  assert.ok(fields.parallelism.has('expert_parallel_degree') && fields.parallelism.has('expert_tensor_parallel_degree'));
});

test('Mixtral and DeepSeek-V3 export their experts, router and latent attention to every trainer', () => {
  const deepseek = cliEstimate(CASES['deepseek-v3: latent attention, 256 experts, ep 64, 3 dense layers']);
  const args = parseArgs(megatronArgs(deepseek).text);
  assert.equal(args['--num-experts'], '256');
  assert.equal(args['--moe-router-topk'], '8');
  assert.equal(args['--moe-ffn-hidden-size'], '2048');
  assert.equal(args['--moe-shared-expert-intermediate-size'], '2048');
  assert.deepEqual(evalLayerPattern(JSON.parse(args['--moe-layer-freq'])), [0, 0, 0, ...Array(58).fill(1)]);
  assert.equal(args['--expert-model-parallel-size'], '64');
  assert.equal(args['--expert-tensor-parallel-size'], '1');
  assert.equal(args['--multi-latent-attention'], true);
  assert.equal(args['--q-lora-rank'], '1536');
  assert.equal(args['--kv-lora-rank'], '512');
  assert.equal(args['--qk-head-dim'], '128'); // the part without rotary
  assert.equal(args['--qk-pos-emb-head-dim'], '64');
  assert.equal(args['--v-head-dim'], '128');
  assert.equal(args['--num-query-groups'], undefined);
  const toml = parseToml(torchtitanToml(deepseek).text);
  assert.deepEqual([toml.model.name, toml.model.flavor], ['deepseek_v3', '671B']);
  assert.equal(toml.parallelism.expert_parallel_degree, 64);
  assert.equal(toml['#'].model['moe_args.num_experts'], 256);
  assert.equal(toml['#'].model.kv_lora_rank, 512);
  assert.match(parseDeepspeed(deepspeedConfig(deepseek).text).comments.join('\n'), /MoE\(num_experts=256, ep_size=64, k=8\)/);

  const mixtral = cliEstimate(CASES['mixtral-8x7b: top-2 of 8, ep 8, etp 2, fp8, ZeRO-3']);
  const margs = parseArgs(megatronArgs(mixtral).text);
  assert.deepEqual([margs['--num-experts'], margs['--moe-router-topk'], margs['--moe-ffn-hidden-size']], ['8', '2', '14336']);
  assert.deepEqual([margs['--expert-model-parallel-size'], margs['--expert-tensor-parallel-size']], ['8', '2']);
  assert.equal(margs['--moe-layer-freq'], '1');
  assert.equal(margs['--moe-shared-expert-intermediate-size'], undefined);
  assert.equal(margs['--moe-token-dispatcher-type'], 'alltoall'); // the estimate's dispatch
  assert.equal(margs['--fp8-recipe'], 'delayed');
  const mtoml = parseToml(torchtitanToml(mixtral).text);
  assert.equal(mtoml.parallelism.expert_parallel_degree, 8);
  assert.equal(mtoml.parallelism.expert_tensor_parallel_degree, 2);
  assert.equal(mtoml.model.name, undefined); // torchtitan ships no Mixtral: said in a note
  assert.ok(torchtitanToml(mixtral).notes.some((n) => /mixtral-8x7b: torchtitan ships no flavor/.test(n)));
  // a dense model gets none of it
  const dense = parseArgs(megatronArgs(cliEstimate(CASES['llama-3.1-70b, interleaved, ZeRO-1, full recompute'])).text);
  for (const flag of ['--num-experts', '--expert-model-parallel-size', '--multi-latent-attention']) assert.equal(dense[flag], undefined);
});

test('MoE layer patterns follow the core\'s rule', () => {
  const layers = (moe, n) => {
    const freq = megatronMoeLayerFreq(moe, n);
    return freq === '1' ? Array(n).fill(1) : evalLayerPattern(JSON.parse(freq));
  };
  assert.deepEqual(layers({ first_dense: 0, every: 1 }, 4), [1, 1, 1, 1]);
  assert.deepEqual(layers({ first_dense: 1, every: 2 }, 6), [0, 0, 1, 0, 1, 0]);
  assert.deepEqual(layers({ first_dense: 0, every: 2 }, 5), [0, 1, 0, 1, 0]); // Llama 4: every second layer
  assert.deepEqual(layers({ first_dense: 3, every: 1 }, 5), [0, 0, 0, 1, 1]);
});

test('dropout is set outright: 0 where the estimate counts none, Megatron-LM\'s 0.1 where it does', () => {
  const llama = parseArgs(megatronArgs(cliEstimate(CASES['llama-3.1-70b, interleaved, ZeRO-1, full recompute'])).text);
  assert.equal(llama['--attention-dropout'], '0');
  assert.equal(llama['--hidden-dropout'], '0');
  const gpt = parseArgs(megatronArgs(cliEstimate(CASES['gpt3-175b: dropout, learned positions, tied embeddings'])).text);
  assert.equal(gpt['--attention-dropout'], '0.1');
  assert.equal(gpt['--hidden-dropout'], '0.1');
});

test('a plan that does not fit carries a warning in every format; one that fits does not', () => {
  const over = cliEstimate({ ...CASES['llama-3.1-70b, interleaved, ZeRO-1, full recompute'],
    training: { seq_len: 8192, global_batch: 1024, micro_batch: 1 }, parallel: { tp: 1, pp: 1, sharding: 'zero', zero: 0 } });
  assert.equal(over.memory.zone, 'red');
  const warning = fitWarning(over);
  assert.match(warning, /^WARNING: this plan does not fit: the \w+ pipeline stage needs [\d.]+ GiB of the GPU's 79\.6 GiB \(\d+%\)/);
  assert.ok(parseArgs(megatronArgs(over).text).comments.includes(warning));
  assert.ok(parseToml(torchtitanToml(over).text).comments.includes(warning));
  assert.ok(parseDeepspeed(deepspeedConfig(over).text).comments.includes(warning));
  const fits = cliEstimate(CASES['llama-3.1-70b, interleaved, ZeRO-1, full recompute']);
  assert.notEqual(fits.memory.zone, 'red');
  assert.equal(fitWarning(fits), null);
  for (const text of [megatronArgs(fits).text, torchtitanToml(fits).text, deepspeedConfig(fits).text]) {
    assert.doesNotMatch(text, /WARNING/);
    assert.match(text, /estimated with the megatron-core framework profile/);
  }
});
