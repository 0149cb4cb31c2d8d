// launch.js: the estimated plan as launch settings for three trainers:
// Megatron-LM command-line arguments, a DeepSpeed config JSON and a
// torchtitan TOML snippet. Each reads the core's estimate (its resolved
// config and plan), so the snippet says what the estimate assumed. What a
// trainer cannot express is listed in `notes` (and as comments where the
// format has them), never silently dropped.
//
// Argument names: Megatron-LM's arguments.py (core 0.8 onwards;
// Megatron-FSDP's --data-parallel-sharding-strategy from 0.13), DeepSpeed's
// config-json documentation, torchtitan's job_config.py (local_batch_size
// and global_batch_size from 2025; pipeline_parallel_first_stage_less_layers,
// pipeline_parallel_last_stage_less_layers and module_fqns_per_model_part in
// torchtitan/config/configs.py). Uneven pipeline stages: Megatron-LM's
// --decoder-first/last-pipeline-num-layers and --pipeline-model-parallel-layout.
import { placement } from './format.js';

/** ZeRO stage of a plan: the sharding scheme as ZeRO's stages name it. */
function zeroStage(parallel) {
  if (parallel.sharding === 'zero') return parallel.zero;
  if (parallel.sharding === 'fsdp_shard_grad_op') return 2;
  return 3; // fsdp_full_shard, fsdp_hybrid_shard
}

const TORCH_DTYPE = { bf16: 'bfloat16', fp16: 'float16', fp32: 'float32' };

/** Every pipeline stage's layers, first to last, as core/plan.c's
 * plan_split_layers splits them: the given first and last stages (0: not
 * given) and the other stages sharing the rest evenly; none given and pp
 * dividing the layers, equal shares; otherwise torchtitan's default split,
 * the embedding and the LM head counting as a layer each and the
 * layers + 2 units spread evenly, the earlier stages taking the extra ones,
 * the two ends then holding one layer fewer than their units. */
export function stageLayers(layers, pp, first = 0, last = 0) {
  if (pp === 1) return [layers];
  if (first || last) {
    const others = pp - (first ? 1 : 0) - (last ? 1 : 0);
    const share = others ? (layers - first - last) / others : 0;
    return Array.from({ length: pp }, (_, i) => (i === 0 && first) || (i === pp - 1 && last) || share);
  }
  if (layers % pp === 0) return Array(pp).fill(layers / pp);
  const q = Math.floor((layers + 2) / pp), r = (layers + 2) % pp;
  return Array.from({ length: pp }, (_, i) => q + (i < r ? 1 : 0) - (i === 0 ? 1 : 0) - (i === pp - 1 ? 1 : 0));
}

/** Shared facts every format needs, from one estimate. */
function facts(result) {
  const { config, plan } = result;
  const { model, training, parallel } = config;
  const given = Boolean(parallel.first_stage_layers || parallel.last_stage_layers);
  const stages = stageLayers(model.layers, plan.pp, parallel.first_stage_layers ?? 0, parallel.last_stage_layers ?? 0);
  const uneven = stages.some((n) => n !== stages[0]);
  return {
    model, training, parallel, plan, stages, uneven, given,
    chunks: plan.schedule === 'interleaved' ? plan.virtual_stages : 1,
    layersPerChunk: plan.schedule === 'interleaved' && !uneven ? model.layers / (plan.pp * plan.virtual_stages) : 0,
    accumulation: training.global_batch / (training.micro_batch * plan.dp),
  };
}

/** Megatron-LM's --pipeline-model-parallel-layout of stages (one model
 * chunk each): E the embedding, t a layer, L the loss, | between stages,
 * (x|)*n for n alike (megatron/core/transformer/
 * pipeline_parallel_layer_layout.py's syntax). */
function megatronLayout(stages) {
  const parts = [];
  for (let i = 0; i < stages.length;) {
    let n = 1;
    while (i > 0 && i + n < stages.length - 1 && stages[i + n] === stages[i]) n++;
    const body = `t*${stages[i]}`;
    if (i === 0) parts.push(`E,${body}|`);
    else if (i === stages.length - 1) parts.push(`${body},L`);
    else parts.push(n > 1 ? `(${body}|)*${n}` : `${body}|`);
    i += n;
  }
  return parts.join('');
}

/** How Megatron-LM splits the layers over the stages when they are not
 * equal: the first and last stages' layers when the middle ones are
 * alike (with the interleaved schedule, chunks per rank given as a count,
 * as arguments.py requires with uneven stages), the whole layout when
 * they are not. */
function megatronStages({ stages, chunks }, add) {
  const middles = stages.slice(1, -1);
  if (middles.every((n) => n === middles[0])) {
    add('--decoder-first-pipeline-num-layers', stages[0]);
    add('--decoder-last-pipeline-num-layers', stages[stages.length - 1]);
    if (chunks > 1) add('--num-virtual-stages-per-pipeline-rank', chunks);
  } else {
    add('--pipeline-model-parallel-layout', `"${megatronLayout(stages)}"`);
  }
}

/** torchtitan's module names of every model chunk, in its order (chunk j
 * of rank r is stage j·pp + r): for stages given outright, which its
 * balancing options cannot express. Module names as torchtitan's
 * _generate_llm_fqn_per_model_part writes them. */
function torchtitanParts(stages, chunks) {
  const parts = [];
  let layer = 0;
  for (let j = 0; j < chunks; j++) {
    stages.forEach((n, r) => {
      const part = Array.from({ length: n / chunks }, () => `layers.${layer++}`);
      if (j === 0 && r === 0) part.unshift('tok_embeddings');
      if (j === chunks - 1 && r === stages.length - 1) part.push('norm', 'lm_head');
      parts.push(part);
    });
  }
  return parts;
}

/** No trainer here runs SUMMA: each runs the same tp x cp as 1D TP with
 * context parallelism, which the page can estimate for comparison. */
/** A note when the estimate assumed another trainer's defaults than the one
 * the settings launch (training.framework: its cross-entropy's workspace). */
function noteFramework(training, notes, framework) {
  if (training.framework && !framework.includes(training.framework)) {
    notes.push(`the estimate assumed ${training.framework}'s defaults: set Framework to ` +
      `${framework[0]} to estimate what this trainer does`);
  }
}

function noteSumma(parallel, notes, trainer) {
  if (parallel.tp_algorithm === 'summa') {
    notes.push(`SUMMA tensor parallelism (Subramanian et al. 2024) is not a ${trainer} option: this runs tp × cp as ` +
      '1D TP with context parallelism (TP algorithm megatron)');
  }
}

/** Both trainers number ranks tp first, then cp, dp and pp (torchtitan's
 * device mesh is pp, dp, cp, tp outermost first): another order, or ranks per
 * node given outright (Subramanian et al. 2024's placement), is the user's to
 * arrange. */
function notePlacement(parallel, notes, trainer, order) {
  if (parallel.per_node) {
    notes.push(`placement ${placement(parallel.per_node)} (GPUs per node of each group): ${trainer} numbers ` +
      `ranks ${order}, innermost first, which gives it only where that order puts the same ranks on a node`);
  } else if (parallel.order !== 'tp-cp-dp-pp') {
    notes.push(`rank order ${parallel.order}: ${trainer} numbers ranks ${order}`);
  }
}

/** Megatron-LM's pretrain_gpt.py under torchrun (one node's processes; add
 * the rendezvous options of your cluster), one argument per line. */
export function megatronArgs(result) {
  const f = facts(result);
  const { model, training, parallel, plan, layersPerChunk } = f;
  const args = [];
  const notes = [];
  const add = (flag, value) => args.push(value === undefined ? flag : `${flag} ${value}`);
  noteFramework(training, notes, ['megatron-core', 'nemo']);

  add('--num-layers', model.layers);
  add('--hidden-size', model.hidden);
  add('--ffn-hidden-size', model.ffn_hidden);
  add('--num-attention-heads', model.heads);
  if (model.kv_heads < model.heads) {
    add('--group-query-attention');
    add('--num-query-groups', model.kv_heads);
  }
  add('--seq-length', training.seq_len);
  if (model.arch === 'llama') {
    add('--max-position-embeddings', training.seq_len);
    add('--position-embedding-type', 'rope');
    add('--normalization', 'RMSNorm');
    add('--swiglu');
    add('--disable-bias-linear');
  } else {
    add('--max-position-embeddings', model.positions);
    add('--position-embedding-type', 'learned_absolute');
  }
  if (!model.tied_embeddings) add('--untie-embeddings-and-output-weights');
  notes.push(`the vocabulary (${model.vocab} tokens) comes from your --tokenizer-type and tokenizer files`);

  add('--tensor-model-parallel-size', plan.tp);
  add('--pipeline-model-parallel-size', plan.pp);
  if (f.uneven) megatronStages(f, add);
  else if (layersPerChunk > 0) add('--num-layers-per-virtual-pipeline-stage', layersPerChunk);
  if (plan.schedule === 'gpipe') notes.push('GPipe: Megatron-LM runs 1F1B (or interleaved) only');
  add('--context-parallel-size', plan.cp);
  noteSumma(parallel, notes, 'Megatron-LM');
  if (plan.sp && plan.tp > 1) add('--sequence-parallel');
  if (parallel.tp_overlap && plan.tp > 1) add('--tp-comm-overlap');
  add('--micro-batch-size', training.micro_batch);
  add('--global-batch-size', training.global_batch);

  const stage = zeroStage(parallel);
  if (parallel.sharding === 'fsdp_hybrid_shard') {
    notes.push(`hybrid sharding over groups of ${plan.shard_factors.weights} GPUs has no Megatron-LM flag here: ` +
      'this sets full sharding (torchtitan and DeepSpeed below express the groups)');
  }
  if (stage === 1) add('--use-distributed-optimizer');
  if (stage >= 2) {
    add('--use-megatron-fsdp');
    add('--data-parallel-sharding-strategy', stage === 2 ? 'optim_grads' : 'optim_grads_params');
  }

  if (training.recompute === 'full') {
    add('--recompute-granularity', 'full');
    add('--recompute-method', 'uniform');
    add('--recompute-num-layers', 1);
  } else if (training.recompute === 'selective') {
    add('--recompute-granularity', 'selective');
  } else if (training.recompute === 'selective_op') {
    notes.push('Megatron-LM has no per-op recompute (torchtitan\'s selective_op): no recompute flag is set; ' +
      '--recompute-granularity selective recomputes the attention core only');
  }

  // Megatron-Core's cpu_offloading: arguments.py makes --cpu-offloading-num-layers
  // (generated from TransformerConfig) switch it on; cpu_offloading itself has no flag
  if (training.offload_layers > 0) add('--cpu-offloading-num-layers', training.offload_layers);

  const p = training.precision;
  if (p.weights === 'bf16') add('--bf16');
  if (p.weights === 'fp16') add('--fp16');
  if (p.fp8) add('--fp8-format', 'hybrid');
  if (p.fp8_params) add('--fp8-param-gather');
  if (p.gradients !== 'fp32' && p.weights === 'bf16') {
    notes.push(`${p.gradients} gradients: Megatron-LM accumulates bf16 training's gradients in fp32`);
  }
  if (training.flash_attention) add('--use-flash-attn');
  // the estimate's loader delivers no dense mask unless told it does
  if (!training.dataloader_mask) add('--no-create-attention-mask-in-dataloader');
  if (training.optimizer === 'adam' || training.optimizer === 'adamw') add('--optimizer', 'adam');
  else if (training.optimizer === 'sgd') add('--optimizer', 'sgd');
  else notes.push(`optimizer ${training.optimizer}: not one of Megatron-LM's (adam, sgd)`);
  if (p.optimizer !== 'fp32' && training.optimizer !== 'adam8bit') {
    notes.push(`${p.optimizer} optimizer states: Megatron-LM keeps them in fp32 unless --use-precision-aware-optimizer`);
  }
  notePlacement(parallel, notes, 'Megatron-LM', 'tp-cp-ep-dp-pp');
  const { gpus, gpus_per_node: perNode } = result.config.system;
  const launcher = `torchrun --nproc-per-node ${Math.min(gpus, perNode)} --nnodes ${Math.ceil(gpus / perNode)} pretrain_gpt.py`;
  return { text: [launcher, ...args].join(' \\\n  '), notes };
}

/** A DeepSpeed config (the JSON given to deepspeed.initialize). tp, pp and
 * cp are not part of it: the model code (Megatron-DeepSpeed: the arguments
 * above) sets them. */
export function deepspeedConfig(result) {
  const { training, parallel, plan, accumulation } = facts(result);
  const notes = ['tensor, pipeline and context parallel sizes are set by the model code ' +
    '(Megatron-DeepSpeed: the Megatron-LM arguments), not by this file'];
  noteFramework(training, notes, ['deepspeed']);
  noteSumma(parallel, notes, 'DeepSpeed');
  const stage = zeroStage(parallel);
  const zero = { stage, overlap_comm: true, contiguous_gradients: true };
  if (parallel.sharding === 'fsdp_hybrid_shard') {
    zero.mics_shard_size = plan.shard_factors.weights; // MiCS: ZeRO-3 inside groups, replicated across
  }
  if (plan.pp > 1 && stage > 1) notes.push(`DeepSpeed's pipeline engine supports ZeRO stage 0 or 1, not ${stage}`);
  const config = {
    train_batch_size: training.global_batch,
    train_micro_batch_size_per_gpu: training.micro_batch,
    gradient_accumulation_steps: accumulation,
  };
  const p = training.precision;
  if (p.weights === 'bf16') config.bf16 = { enabled: true };
  if (p.weights === 'fp16') config.fp16 = { enabled: true, loss_scale: 0 };
  config.data_types = { grad_accum_dtype: p.gradients };
  config.zero_optimization = zero;
  if (training.recompute === 'selective_op') {
    notes.push('DeepSpeed has no per-op recompute (torchtitan\'s selective_op): deepspeed.checkpointing ' +
      'recomputes whole blocks the model code wraps');
  } else if (training.recompute !== 'none') {
    notes.push(`${training.recompute} recompute is switched on in the model code (deepspeed.checkpointing)`);
  }
  if (p.fp8) notes.push('fp8: through Transformer Engine in the model code');
  if (p.fp8_params) {
    notes.push('fp8 weights: DeepSpeed keeps 16-bit weights; Transformer Engine\'s fp8_model_init in the model ' +
      'code would make them fp8, which ZeRO does not gather');
  }
  if (training.offload_layers > 0) {
    notes.push(`activation offloading (${training.offload_layers} layers): DeepSpeed has no layer offloading ` +
      'without recompute; its activation_checkpointing.cpu_checkpointing moves recompute\'s checkpoints to the host');
  }
  return { text: JSON.stringify(config, null, 2), notes };
}

/** A torchtitan job config: the [training], [parallelism] and
 * [activation_checkpoint] sections; the rest stays as in your file. */
export function torchtitanToml(result) {
  const f = facts(result);
  const { model, training, parallel, plan, layersPerChunk } = f;
  const notes = [];
  noteFramework(training, notes, ['torchtitan']);
  noteSumma(parallel, notes, 'torchtitan');
  notePlacement(parallel, notes, 'torchtitan', 'tp-cp-dp-pp');
  // The core's shard factors count dp·cp ranks; torchtitan's shard degree
  // counts dp ranks and shards over cp as well.
  let replicate = plan.dp, shard = 1;
  const stage = zeroStage(parallel);
  if (parallel.sharding === 'fsdp_hybrid_shard') {
    shard = Math.max(1, plan.shard_factors.weights / plan.cp);
    replicate = plan.dp / shard;
    if (!Number.isInteger(shard) || !Number.isInteger(replicate)) {
      notes.push(`hybrid groups of ${plan.shard_factors.weights} GPUs do not split cp ${plan.cp} evenly`);
    }
  } else if (stage > 0) {
    replicate = 1;
    shard = plan.dp;
  }
  if (parallel.sharding === 'zero' && stage === 1) {
    notes.push('ZeRO-1: torchtitan shards with FSDP2; the nearest is not resharding after forward (ZeRO-2)');
  }
  // With pipeline parallelism one step is one pass of local_batch_size
  // samples cut into micro-batches; without it, local_batch_size is the
  // micro-batch and torchtitan accumulates up to the global batch.
  const local = plan.pp > 1 ? training.global_batch / plan.dp : training.micro_batch;
  const schedule = { '1f1b': '1F1B', interleaved: 'Interleaved1F1B', gpipe: 'GPipe' }[plan.schedule];
  const lines = [
    '[training]',
    `local_batch_size = ${local}`,
    `global_batch_size = ${training.global_batch}`,
    `seq_len = ${training.seq_len}`,
    `mixed_precision_param = "${TORCH_DTYPE[training.precision.weights]}"`,
    `mixed_precision_reduce = "float32"`,
    '',
    '[parallelism]',
    `data_parallel_replicate_degree = ${replicate}`,
    `data_parallel_shard_degree = ${shard}`,
    `tensor_parallel_degree = ${plan.tp}`,
    `context_parallel_degree = ${plan.cp}`,
    `pipeline_parallel_degree = ${plan.pp}`,
  ];
  if (plan.pp > 1) {
    lines.push(`pipeline_parallel_schedule = "${schedule}"`);
    lines.push(`pipeline_parallel_microbatch_size = ${training.micro_batch}`);
    if (f.uneven && f.given) {
      lines.push(`module_fqns_per_model_part = ${JSON.stringify(torchtitanParts(f.stages, f.chunks))}`);
    } else {
      // torchtitan counts the embedding and the LM head as a layer each
      // unless told 0: the estimate's balanced split when pp does not
      // divide the layers, equal stages when it does
      const less = f.uneven ? 1 : 0;
      lines.push(`pipeline_parallel_first_stage_less_layers = ${less}`);
      lines.push(`pipeline_parallel_last_stage_less_layers = ${less}`);
      if (layersPerChunk > 0) lines.push(`pipeline_parallel_layers_per_stage = ${layersPerChunk}`);
    }
  }
  if (stage === 1 || stage === 2) lines.push('fsdp_reshard_after_forward = "never"');
  if (plan.tp > 1 && !plan.sp) notes.push('torchtitan always splits norms over tp (sequence parallel)');
  // torchtitan 9dec370 config_manager: mode none, selective or full;
  // selective_ac_option "op" is its per-op policy (the estimate's
  // selective_op); it has no mode that recomputes only the attention core
  const op = training.recompute === 'selective_op' || training.recompute === 'selective';
  lines.push('', '[activation_checkpoint]', `mode = "${op ? 'selective' : training.recompute}"`);
  if (op) lines.push('selective_ac_option = "op"');
  if (training.recompute === 'selective') {
    notes.push('torchtitan has no attention-core recompute: its per-op policy is set, which the estimate ' +
      'models as training.recompute "selective_op"');
  }
  if (training.precision.fp8) lines.push('', '[model]', 'converters = ["float8"]');
  if (training.precision.fp8_params) {
    // torchao's float8 with FSDP2 gathers the weights in fp8 but keeps them in
    // high precision: the gather's bytes match, the stored weights do not
    lines.push('', '[float8]', 'enable_fsdp_float8_all_gather = true');
    notes.push('fp8 weights: torchtitan gathers them in fp8 (enable_fsdp_float8_all_gather) but keeps the ' +
      'sharded weights in high precision, 2 bytes a parameter more than estimated');
  }
  if (training.offload_layers > 0) {
    notes.push(`activation offloading (${training.offload_layers} layers): torchtitan has no equivalent; ` +
      'its activations stay on the GPU');
  }
  if (parallel.tp_overlap && plan.tp > 1) lines.push('', '[experimental]', 'enable_async_tensor_parallel = true');
  if (model.arch !== 'llama') notes.push('torchtitan trains Llama-style models; a GPT architecture needs its own model code');
  return { text: lines.join('\n'), notes };
}
