// Launch settings (web/src/launch.js) from the CLI's own estimates: each
// trainer's sizes multiply back to the job's GPUs and batch, and the
// arguments carry the plan's values under the trainers' own names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliEstimate } from '../helpers.mjs';
import { deepspeedConfig, megatronArgs, stageLayers, torchtitanToml } from '../../web/src/launch.js';
import { parseArgs, parseDeepspeed, parseToml } from './launch_formats.mjs';

const LLAMA_70B = {
  model: { preset: 'llama-3.1-70b' },
  system: { gpu: 'h100-80gb', gpus: 64 },
  training: { seq_len: 8192, global_batch: 1024, micro_batch: 1, recompute: 'full' },
  parallel: { tp: 8, pp: 4, cp: 1, schedule: 'interleaved', virtual_stages: 2, sharding: 'zero', zero: 1 },
};

test('Megatron-LM arguments carry the plan and the architecture', () => {
  const { text, notes } = megatronArgs(cliEstimate(LLAMA_70B));
  assert.match(text, /^torchrun --nproc-per-node 8 --nnodes 8 pretrain_gpt.py \\\n/m);
  const args = parseArgs(text);
  assert.equal(args['--tensor-model-parallel-size'], '8');
  assert.equal(args['--pipeline-model-parallel-size'], '4');
  assert.equal(args['--num-layers-per-virtual-pipeline-stage'], '10'); // 80 layers / (4 stages x 2 chunks)
  assert.equal(args['--context-parallel-size'], '1');
  assert.equal(args['--num-layers'], '80');
  assert.equal(args['--hidden-size'], '8192');
  assert.equal(args['--ffn-hidden-size'], '28672');
  assert.equal(args['--num-query-groups'], '8');
  assert.equal(args['--global-batch-size'], '1024');
  assert.equal(args['--recompute-granularity'], 'full');
  assert.equal(args['--use-distributed-optimizer'], true);
  assert.equal(args['--sequence-parallel'], true);
  assert.equal(args['--bf16'], true);
  assert.equal(args['--use-megatron-fsdp'], undefined);
  assert.ok(notes.some((n) => /128256/.test(n)), 'the vocabulary is left to the tokenizer, and said so');
  // the estimate's data loader builds no mask, so the run must not either
  assert.equal(args['--no-create-attention-mask-in-dataloader'], true);
  const masked = { ...LLAMA_70B, training: { ...LLAMA_70B.training, dataloader_mask: true } };
  assert.equal(parseArgs(megatronArgs(cliEstimate(masked)).text)['--no-create-attention-mask-in-dataloader'], undefined);
});

test('DeepSpeed\'s batch arithmetic holds and ZeRO follows the sharding', () => {
  const result = cliEstimate(LLAMA_70B);
  const { config } = parseDeepspeed(deepspeedConfig(result).text);
  assert.equal(result.plan.dp, 2);
  assert.equal(config.train_batch_size, 1024);
  assert.equal(config.train_micro_batch_size_per_gpu, 1);
  assert.equal(config.gradient_accumulation_steps, 512); // 1024 / (1 x dp 2)
  assert.deepEqual(config.bf16, { enabled: true });
  assert.equal(config.data_types.grad_accum_dtype, 'fp32');
  assert.equal(config.zero_optimization.stage, 1);

  const hybrid = cliEstimate({ ...LLAMA_70B, model: { preset: 'llama-3.1-8b' },
    parallel: { tp: 2, cp: 2, sharding: 'fsdp_hybrid_shard' } });
  const ds = deepspeedConfig(hybrid);
  const zero = parseDeepspeed(ds.text).config.zero_optimization;
  assert.equal(zero.stage, 3);
  assert.equal(zero.mics_shard_size, 4); // one 8-GPU node / tp 2: 4 ranks hold one copy
});

test('torchtitan degrees multiply to the GPUs and its batch to the global batch', () => {
  const toml = parseToml(torchtitanToml(cliEstimate(LLAMA_70B)).text);
  const p = toml.parallelism;
  assert.equal(p.tensor_parallel_degree, 8);
  assert.equal(p.pipeline_parallel_degree, 4);
  assert.equal(p.pipeline_parallel_schedule, 'Interleaved1F1B');
  assert.equal(p.pipeline_parallel_layers_per_stage, 10);
  // equal stages: torchtitan told not to count the embedding and head as layers
  assert.equal(p.pipeline_parallel_first_stage_less_layers, 0);
  assert.equal(p.pipeline_parallel_last_stage_less_layers, 0);
  assert.equal(p.data_parallel_shard_degree, 2);
  assert.equal(p.data_parallel_replicate_degree, 1);
  assert.equal(toml.training.local_batch_size, 512); // one pipeline pass of 512 micro-batches per dp rank
  assert.equal(toml.training.global_batch_size, 1024);
  assert.equal(toml.activation_checkpoint.mode, 'full');
});

test('every sharding and schedule gives sizes that multiply back to the job', () => {
  const shardings = [{ sharding: 'zero', zero: 0 }, { sharding: 'zero', zero: 2 }, { sharding: 'zero', zero: 3 },
    { sharding: 'fsdp_full_shard' }, { sharding: 'fsdp_shard_grad_op' }, { sharding: 'fsdp_hybrid_shard' }];
  const shapes = [{ tp: 1, cp: 1, pp: 1 }, { tp: 2, cp: 2, pp: 1 }, { tp: 4, cp: 1, pp: 2, schedule: 'gpipe' }];
  for (const sharding of shardings) {
    for (const shape of shapes) {
      const result = cliEstimate({ model: { preset: 'llama-3.1-8b' }, system: { gpu: 'h100-80gb', gpus: 128 },
        training: { seq_len: 4096, global_batch: 512, micro_batch: 2 }, parallel: { ...shape, ...sharding } });
      const { plan } = result;
      const p = parseToml(torchtitanToml(result).text).parallelism;
      const degrees = p.data_parallel_replicate_degree * p.data_parallel_shard_degree;
      assert.equal(degrees * p.tensor_parallel_degree * p.context_parallel_degree * p.pipeline_parallel_degree, 128,
        JSON.stringify({ sharding, shape }));
      const ds = parseDeepspeed(deepspeedConfig(result).text).config;
      assert.equal(ds.train_micro_batch_size_per_gpu * ds.gradient_accumulation_steps * plan.dp, ds.train_batch_size);
      assert.equal(ds.zero_optimization.stage, sharding.zero ?? (sharding.sharding === 'fsdp_shard_grad_op' ? 2 : 3));
      const args = parseArgs(megatronArgs(result).text);
      const mp = +args['--tensor-model-parallel-size'] * +args['--pipeline-model-parallel-size'] * +args['--context-parallel-size'];
      assert.equal(mp * plan.dp, 128);
    }
  }
});

test('a SUMMA plan is launched as tp x cp with context parallelism, and each trainer says so', () => {
  const summa = { ...LLAMA_70B, parallel: { tp: 4, pp: 4, cp: 2, tp_algorithm: 'summa', sharding: 'zero', zero: 1 } };
  const result = cliEstimate(summa);
  assert.equal(result.plan.tp_algorithm, 'summa');
  assert.ok(result.time.summa_panels >= 1);
  const megatron = megatronArgs(result);
  const args = parseArgs(megatron.text);
  assert.equal(args['--tensor-model-parallel-size'], '4');
  assert.equal(args['--context-parallel-size'], '2');
  for (const { notes } of [megatron, deepspeedConfig(result), torchtitanToml(result)]) {
    assert.ok(notes.some((n) => n.startsWith('SUMMA tensor parallelism (Subramanian et al. 2024) is not a')), notes.join('; '));
  }
  assert.ok(!megatronArgs(cliEstimate(LLAMA_70B)).notes.some((n) => n.startsWith('SUMMA')));
});

test('ranks per node given outright are a note for the trainers that number ranks themselves', () => {
  // tp 8 on a node is Megatron's own placement; tp 4 with two pipeline stages is not
  const placed = { ...LLAMA_70B, parallel: { ...LLAMA_70B.parallel, tp: 4, per_node: { tp: 4, pp: 2 } } };
  const result = cliEstimate(placed);
  assert.deepEqual(result.plan.per_node, { tp: 4, cp: 1, dp: 1, pp: 2 });
  for (const { notes } of [megatronArgs(result), torchtitanToml(result)]) {
    assert.ok(notes.some((n) => n.startsWith('placement tp4 pp2 (GPUs per node of each group)')), notes.join('; '));
  }
  assert.ok(!megatronArgs(cliEstimate(LLAMA_70B)).notes.some((n) => n.startsWith('placement')));
});

test('tensor-parallel overlap is launched where the estimate counted it', () => {
  const overlapped = cliEstimate({ ...LLAMA_70B, parallel: { ...LLAMA_70B.parallel, tp_overlap: true } });
  assert.equal(parseArgs(megatronArgs(overlapped).text)['--tp-comm-overlap'], true);
  assert.equal(parseToml(torchtitanToml(overlapped).text).parallelism.enable_async_tensor_parallel, true);
  const exposed = cliEstimate(LLAMA_70B);
  assert.equal(parseArgs(megatronArgs(exposed).text)['--tp-comm-overlap'], undefined);
  assert.equal(parseToml(torchtitanToml(exposed).text).parallelism.enable_async_tensor_parallel, false);
});

test('per-op recompute is torchtitan\'s selective "op"; Megatron-LM and DeepSpeed say they have none', () => {
  const result = cliEstimate({ ...LLAMA_70B, training: { ...LLAMA_70B.training, recompute: 'selective_op' } });
  const toml = parseToml(torchtitanToml(result).text);
  assert.equal(toml.activation_checkpoint.mode, 'selective');
  assert.equal(toml.activation_checkpoint.selective_ac_option, 'op');
  const megatron = megatronArgs(result);
  assert.equal(parseArgs(megatron.text)['--recompute-granularity'], undefined);
  assert.ok(megatron.notes.some((n) => /no per-op recompute/.test(n)));
  assert.ok(deepspeedConfig(result).notes.some((n) => /no per-op recompute/.test(n)));
  // Megatron's selective (the attention core) has no torchtitan twin: the per-op policy, said so
  const selective = cliEstimate({ ...LLAMA_70B, training: { ...LLAMA_70B.training, recompute: 'selective' } });
  const titan = torchtitanToml(selective);
  assert.equal(parseToml(titan.text).activation_checkpoint.selective_ac_option, 'op');
  assert.ok(titan.notes.some((n) => /selective_op/.test(n)));
});

/** Megatron-LM's layout string unrolled as pipeline_parallel_layer_layout.py
 * parse_str_to_list does: commas dropped, (x)*n then x*n repeated, split at |. */
function unrollLayout(layout) {
  let text = layout.replace(/,/g, '');
  text = text.replace(/\(([^)]+)\)\*(\d+)/g, (_, x, n) => x.repeat(+n));
  text = text.replace(/(.)\*(\d+)/g, (_, x, n) => x.repeat(+n));
  return text.split('|');
}

const LLAMA_405B_PP16 = {
  model: { preset: 'llama-3.1-405b' }, system: { gpu: 'h100-80gb', gpus: 8192 },
  training: { seq_len: 8192, global_batch: 2048, micro_batch: 1 }, parallel: { tp: 8, pp: 16 },
};

test('uneven stages: the split the page exports is the core\'s', () => {
  const cases = [LLAMA_405B_PP16,
    { ...LLAMA_405B_PP16, model: { preset: 'llama-3.1-8b', layers: 61 }, system: { gpus: 96 }, parallel: { pp: 12 } },
    { ...LLAMA_405B_PP16, system: { gpus: 1024 }, parallel: { tp: 8, pp: 8, schedule: 'interleaved', virtual_stages: 2,
      first_stage_layers: 14, last_stage_layers: 16 } }];
  for (const doc of cases) {
    const { config, memory } = cliEstimate(doc);
    const p = config.parallel;
    const stages = stageLayers(config.model.layers, p.pp, p.first_stage_layers ?? 0, p.last_stage_layers ?? 0);
    assert.equal(stages.reduce((a, b) => a + b), config.model.layers);
    assert.deepEqual(memory.stages.map((s) => s.layers), [stages[0], stages[1], stages[p.pp - 1]]);
  }
  assert.deepEqual(stageLayers(126, 16), [7, ...Array(14).fill(8), 7]);
  assert.deepEqual(stageLayers(61, 8), [7, 8, 8, 8, 8, 8, 8, 6]);
  assert.deepEqual(stageLayers(70, 12), [5, ...Array(10).fill(6), 5]);
  assert.deepEqual(stageLayers(32, 4), [8, 8, 8, 8]);
});

test('uneven stages: Megatron-LM gets the first and last stages\' layers, torchtitan its balancing', () => {
  const result = cliEstimate(LLAMA_405B_PP16);
  const args = parseArgs(megatronArgs(result).text);
  assert.equal(args['--num-layers'], '126');
  assert.equal(args['--pipeline-model-parallel-size'], '16');
  assert.equal(args['--decoder-first-pipeline-num-layers'], '7');
  assert.equal(args['--decoder-last-pipeline-num-layers'], '7');
  assert.equal(args['--num-layers-per-virtual-pipeline-stage'], undefined);
  // torchtitan's default split is the estimate's: the ends count one layer less
  const p = parseToml(torchtitanToml(result).text).parallelism;
  assert.equal(p.pipeline_parallel_first_stage_less_layers, 1);
  assert.equal(p.pipeline_parallel_last_stage_less_layers, 1);
  assert.equal(p.module_fqns_per_model_part, undefined);
});

test('uneven stages whose middles differ: Megatron-LM gets the whole layout', () => {
  const result = cliEstimate({ model: { preset: 'llama-3.1-8b', layers: 61 }, system: { gpus: 96 },
    training: { global_batch: 96 }, parallel: { pp: 12 } });
  const args = parseArgs(megatronArgs(result).text);
  assert.equal(args['--decoder-first-pipeline-num-layers'], undefined);
  const layout = JSON.parse(args['--pipeline-model-parallel-layout']);
  const stages = unrollLayout(layout);
  assert.equal(stages.length, 12);
  assert.ok(stages[0].startsWith('E') && stages[11].endsWith('L'), layout);
  assert.deepEqual(stages.map((x) => x.replace(/[EL]/g, '').length), stageLayers(61, 12));
});

test('uneven stages given outright with interleaving: chunk counts and module lists', () => {
  const result = cliEstimate({ ...LLAMA_405B_PP16, system: { gpus: 1024 },
    parallel: { tp: 8, pp: 8, schedule: 'interleaved', virtual_stages: 2, first_stage_layers: 14, last_stage_layers: 16 } });
  const args = parseArgs(megatronArgs(result).text);
  assert.equal(args['--decoder-first-pipeline-num-layers'], '14');
  assert.equal(args['--decoder-last-pipeline-num-layers'], '16');
  assert.equal(args['--num-virtual-stages-per-pipeline-rank'], '2');
  assert.equal(args['--num-layers-per-virtual-pipeline-stage'], undefined); // arguments.py refuses it with uneven stages
  const p = parseToml(torchtitanToml(result).text).parallelism;
  const parts = p.module_fqns_per_model_part;
  assert.equal(parts.length, 16); // pp x v chunks, chunk j of rank r at j*pp + r
  assert.deepEqual(parts[0], ['tok_embeddings', ...Array.from({ length: 7 }, (_, i) => `layers.${i}`)]);
  assert.deepEqual(parts[15].slice(-2), ['norm', 'lm_head']);
  assert.equal(parts[8][0], 'layers.63'); // the second round starts at 126 / 2
  const layers = parts.flat().filter((m) => m.startsWith('layers.'));
  assert.deepEqual(layers, Array.from({ length: 126 }, (_, i) => `layers.${i}`));
  assert.equal(p.pipeline_parallel_layers_per_stage, undefined);
});

test('each trainer says when the estimate assumed another trainer\'s defaults', () => {
  const megatron = cliEstimate(LLAMA_70B);
  assert.ok(!megatronArgs(megatron).notes.some((n) => /assumed/.test(n)));
  assert.ok(torchtitanToml(megatron).notes.some((n) => /assumed megatron-core's defaults: set Framework to torchtitan/.test(n)));
  const titan = cliEstimate({ ...LLAMA_70B, training: { ...LLAMA_70B.training, framework: 'torchtitan' } });
  assert.ok(!torchtitanToml(titan).notes.some((n) => /assumed/.test(n)));
  assert.ok(deepspeedConfig(titan).notes.some((n) => /assumed torchtitan's defaults/.test(n)));
});

test('activation offloading and fp8 weights: Megatron-LM\'s flags, notes where the others have none', () => {
  const result = cliEstimate({
    model: { preset: 'llama-3.1-70b' }, system: { gpu: 'gb200', gpus: 64 },
    training: { seq_len: 8192, global_batch: 256, micro_batch: 1, offload_layers: 20,
      precision: { fp8: true, fp8_params: true } },
    parallel: { tp: 1, pp: 1, sharding: 'fsdp_full_shard' },
  });
  const args = parseArgs(megatronArgs(result).text);
  assert.equal(args['--cpu-offloading-num-layers'], '20');
  assert.equal(args['--cpu-offloading'], undefined); // set by arguments.py, no flag of its own
  assert.equal(args['--fp8-param-gather'], true);
  const titan = torchtitanToml(result);
  const float8 = parseToml(titan.text);
  assert.deepEqual(float8.model.converters, ['quantize.linear.float8']);
  assert.equal(float8['quantize.linear.float8'].enable_fsdp_float8_all_gather, true);
  assert.ok(titan.notes.some((n) => /torchtitan has no equivalent/.test(n)));
  assert.ok(titan.notes.some((n) => /high precision/.test(n)));
  const ds = deepspeedConfig(result);
  assert.ok(ds.notes.some((n) => /activation offloading \(20 layers\)/.test(n)));
  assert.ok(ds.notes.some((n) => /fp8 weights/.test(n)));
  // neither flag without the mechanism
  const plain = parseArgs(megatronArgs(cliEstimate(LLAMA_70B)).text);
  assert.equal(plain['--cpu-offloading-num-layers'], undefined);
  assert.equal(plain['--fp8-param-gather'], undefined);
});

test('a sliding window goes to Megatron-LM as its window and global layers, and is named for torchtitan', () => {
  const oss = { model: { preset: 'gpt-oss-120b' }, system: { gpu: 'h100-80gb', gpus: 64 },
    training: { seq_len: 4096, global_batch: 512, micro_batch: 1 },
    parallel: { tp: 1, pp: 4, ep: 8, sharding: 'zero', zero: 1 } };
  const args = parseArgs(megatronArgs(cliEstimate(oss)).text);
  assert.equal(args['--window-size'], '127,0'); // 128 keys, the query's own among them
  assert.equal(args['--window-attn-skip-freq'], '2');
  assert.equal(args['--kv-channels'], '64');
  // its YaRN rotary embedding has no Megatron-LM argument, and is named
  assert.ok(megatronArgs(cliEstimate(oss)).notes.some((n) => /YaRN rotary embedding/.test(n)));
  assert.ok(!megatronArgs(cliEstimate(LLAMA_70B)).notes.some((n) => /YaRN/.test(n)));
  const mistral = { ...LLAMA_70B, model: { preset: 'mistral-7b' }, parallel: { tp: 1, pp: 1, cp: 1 } };
  const whole = parseArgs(megatronArgs(cliEstimate(mistral)).text);
  assert.equal(whole['--window-size'], '4095,0');
  assert.equal(whole['--window-attn-skip-freq'], undefined); // every layer windowed
  assert.ok(torchtitanToml(cliEstimate(mistral)).notes.some((n) => /sliding-window attention \(4096 tokens\)/.test(n)));
  assert.ok(!torchtitanToml(cliEstimate(LLAMA_70B)).notes.some((n) => /sliding-window/.test(n)));
});
