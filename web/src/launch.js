// launch.js: the estimated plan as launch settings for three trainers:
// Megatron-LM command-line arguments, a DeepSpeed config JSON and a
// torchtitan TOML snippet. Each reads the core's estimate (its resolved
// config and plan), so the snippet says what the estimate assumed: the
// architecture (MoE experts and router, latent attention), dropout, the
// parallel sizes with ep and etp, sharding, recompute, overlap and fp8
// recipe, each set outright even where it is the trainer's default. What a
// trainer cannot express is listed in `notes` (and as comments where the
// format has them), never silently dropped; a plan that does not fit in
// memory says so in a warning comment at the top of every snippet.
//
// Argument names: Megatron-LM's megatron/training/arguments.py and the
// config dataclasses it turns into arguments (tests/web/fixtures/
// megatron-arguments.json lists each name used here, from NVIDIA/Megatron-LM
// d98e8a6); torchtitan's TOML job config (torchtitan/config/job_config.py at
// e347b1e, 2026-02, the last before its Python configs; fixture
// torchtitan-job-config.json); DeepSpeed's config-json documentation, read
// by deepspeed/runtime/config.py with hjson, which allows // comments.
import { placement } from './format.js';

/** ZeRO stage of a plan: the sharding scheme as ZeRO's stages name it. */
function zeroStage(parallel) {
  if (parallel.sharding === 'zero') return parallel.zero;
  if (parallel.sharding === 'fsdp_shard_grad_op') return 2;
  return 3; // fsdp_full_shard, fsdp_hybrid_shard
}

/** Megatron-Core's recompute_modules of what the estimate recomputes
 * selectively: the attention core (training.recompute selective) and each
 * training.recompute_* module. */
function recomputeModules(training) {
  if (training.recompute !== 'selective' && training.recompute !== 'none') return [];
  return [[training.recompute === 'selective', 'core_attn'], [training.recompute_mlp, 'mlp'],
    [training.recompute_norms, 'layernorm'], [training.recompute_mla_up_proj, 'mla_up_proj'],
    [training.recompute_moe_act, 'moe_act']].filter(([on]) => on).map(([, name]) => name);
}

const TORCH_DTYPE = { bf16: 'bfloat16', fp16: 'float16', fp32: 'float32' };
const GIB = 2 ** 30;

/** The warning every snippet of a plan over memory carries (memory.zone
 * red: the peak stage's tensors over the GPU's capacity, without the
 * allocator's slack), or null. */
export function fitWarning(result) {
  const m = result.memory;
  if (m.zone !== 'red') return null;
  return `WARNING: this plan does not fit: the ${m.peak_stage} pipeline stage needs ` +
    `${(m.peak_bytes / GIB).toFixed(1)} GiB of the GPU's ${(m.capacity_bytes / GIB).toFixed(1)} GiB ` +
    `(${Math.round(100 * m.usage_fraction)}%); it would run out of memory`;
}

/** The first comment lines of a snippet: what it launches, the framework
 * profile the estimate used (training.framework, core/frameworks.c), and
 * the warning of a plan that does not fit. */
function headerLines(result, trainer) {
  const { model, system, training } = result.config;
  const lines = [`trainplan: ${model.name} on ${system.gpus} GPUs for ${trainer}, estimated with the ` +
    `${training.framework} framework profile`];
  const warning = fitWarning(result);
  if (warning) lines.push(warning);
  return lines;
}

/** Megatron-LM's --moe-layer-freq for the core's MoE layers (model.c: layer
 * i is MoE when i >= first_dense and i - first_dense + 1 is a multiple of
 * every): 1 when every layer is, else the Python list expression
 * arguments.py's moe_freq_type evaluates, 1 an expert layer, 0 a dense one. */
export function megatronMoeLayerFreq(moe, layers) {
  const { first_dense: first, every } = moe;
  if (first === 0 && every === 1) return '1';
  const rest = layers - first;
  const terms = [];
  if (first > 0) terms.push(`[0]*${first}`);
  const groups = Math.floor(rest / every);
  const group = every === 1 ? '[1]' : `([0]*${every - 1}+[1])`;
  if (groups > 0) terms.push(`${group}*${groups}`);
  if (rest % every > 0) terms.push(`[0]*${rest % every}`);
  return `"(${terms.join('+')})"`;
}

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

/** A note when the estimate assumed another trainer's defaults than the one
 * the settings launch (training.framework: its cross-entropy's workspace). */
function noteFramework(training, notes, framework) {
  if (training.framework && !framework.includes(training.framework)) {
    notes.push(`the estimate assumed ${training.framework}'s defaults: set Framework to ` +
      `${framework[0]} to estimate what this trainer does`);
  }
}

/** No trainer here runs SUMMA: each runs the same tp x cp as 1D TP with
 * context parallelism, which the page can estimate for comparison. */
function noteSumma(parallel, notes, trainer) {
  if (parallel.tp_algorithm === 'summa') {
    notes.push(`SUMMA tensor parallelism (Subramanian et al. 2024) is not a ${trainer} option: this runs tp × cp as ` +
      '1D TP with context parallelism (TP algorithm megatron)');
  }
  // ring attention always posts the next block's exchange beside the current one's attention
  if ((parallel.cp ?? 1) > 1 && parallel.cp_overlap === false) {
    notes.push(`cp ring overlap off: ${trainer}'s context parallelism overlaps the K/V exchange with no switch; ` +
      'the estimate counts it exposed');
  }
}

/** Megatron-Core settings the other trainers have no option for. */
function noteOnlyMegatron(training, parallel, notes, trainer) {
  const modules = recomputeModules(training).filter((m) => m !== 'core_attn');
  if (modules.length > 0) notes.push(`recompute of ${modules.join(', ')}: Megatron-Core's recompute_modules, not a ${trainer} option`);
  if (training.precision.fp4) notes.push(`NVFP4 GEMMs: Transformer Engine's NVFP4 recipe, not a ${trainer} option`);
  if (parallel.ep_overlap) notes.push(`MoE all-to-alls behind other micro-batches' compute: Megatron-Core's ` +
    `--overlap-moe-expert-parallel-comm, not a ${trainer} option`);
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
 * the rendezvous options of your cluster), one argument per line, after
 * comment lines that say what it launches. */
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
  if (model.attention === 'mla') {
    megatronMla(model.mla, add);
  } else {
    if (model.kv_heads < model.heads) {
      add('--group-query-attention');
      add('--num-query-groups', model.kv_heads);
    }
    if (model.head_dim) add('--kv-channels', model.head_dim);
  }
  // Megatron-Core's window counts the keys before a query, itself aside;
  // every --window-attn-skip-freq-th layer attends globally
  if (model.window_tokens) {
    add('--window-size', `${model.window_tokens - 1},0`);
    if (model.global_every) add('--window-attn-skip-freq', model.global_every);
  }
  add('--seq-length', training.seq_len);
  if (model.arch === 'llama') {
    add('--max-position-embeddings', training.seq_len);
    add('--position-embedding-type', 'rope');
    if (model.yarn_rope) {
      notes.push('YaRN rotary embedding: Megatron-LM\'s --position-embedding-type offers rope, not yarn; '
        + 'Megatron-Bridge\'s model provider sets position_embedding_type yarn and its factors '
        + '(the estimate counts the rotary embedding unfused, as both run it for YaRN)');
    }
    add('--normalization', 'RMSNorm');
    add('--swiglu');
    add('--disable-bias-linear');
  } else {
    add('--max-position-embeddings', model.positions);
    add('--position-embedding-type', 'learned_absolute');
  }
  if (!model.tied_embeddings) add('--untie-embeddings-and-output-weights');
  // Megatron-LM drops out 0.1 of attention probabilities and hidden states
  // by default; the estimate stores dropout's masks only where the model has
  // dropout (model.dropout: gpt yes, llama no), so both rates are set
  const dropout = model.dropout ? 0.1 : 0;
  add('--attention-dropout', dropout);
  add('--hidden-dropout', dropout);
  notes.push(`the vocabulary (${model.vocab} tokens) comes from your --tokenizer-type and tokenizer files`);
  if (model.moe) megatronMoe(model, training, plan, parallel, add, notes);

  add('--tensor-model-parallel-size', plan.tp);
  add('--pipeline-model-parallel-size', plan.pp);
  if (f.uneven) megatronStages(f, add);
  else if (layersPerChunk > 0) add('--num-layers-per-virtual-pipeline-stage', layersPerChunk);
  if (plan.schedule === 'gpipe') notes.push('GPipe: Megatron-LM runs 1F1B (or interleaved) only');
  // Megatron-LM overlaps the interleaved schedule's sends and receives by default
  if (plan.schedule === 'interleaved' && parallel.pp_overlap === false) add('--no-overlap-p2p-communication');
  add('--context-parallel-size', plan.cp);
  if (model.moe) {
    add('--expert-model-parallel-size', plan.ep);
    add('--expert-tensor-parallel-size', plan.etp);
    if (parallel.ep_overlap) {
      // the all-to-alls behind another micro-batch's compute, which needs
      // the weight gradients delayed (arguments.py)
      add('--overlap-moe-expert-parallel-comm');
      add('--delay-wgrad-compute');
    }
  }
  noteSumma(parallel, notes, 'Megatron-LM');
  if (plan.sp && plan.tp > 1) add('--sequence-parallel');
  if (parallel.tp_overlap && plan.tp > 1) add('--tp-comm-overlap');
  add('--micro-batch-size', training.micro_batch);
  add('--global-batch-size', training.global_batch);

  const stage = zeroStage(parallel);
  if (parallel.sharding === 'fsdp_hybrid_shard') {
    notes.push(`hybrid sharding over groups of ${plan.shard_factors.optimizer} GPUs has no Megatron-LM flag here: ` +
      'this sets full sharding (torchtitan and DeepSpeed below express the groups)');
  }
  if (parallel.sharding === 'amsp') {
    notes.push('AMSP\'s separate shard factors (Chen et al. 2023) have no Megatron-LM flag: this shards as ZeRO ' +
      `stage ${stage} would`);
  }
  if (stage === 1) add('--use-distributed-optimizer');
  if (stage >= 2) {
    add('--use-megatron-fsdp');
    add('--data-parallel-sharding-strategy', stage === 2 ? 'optim_grads' : 'optim_grads_params');
  }
  // the estimate hides the data-parallel gradient reduction behind the last
  // backward and the parameter all-gather behind the next forward (time.c)
  if (plan.dp * plan.cp > 1) {
    add('--overlap-grad-reduce');
    if (stage >= 1) add('--overlap-param-gather');
  }

  if (training.recompute === 'full') {
    add('--recompute-granularity', 'full');
    if (training.recompute_layers > 0) {
      add('--recompute-method', 'block');
      add('--recompute-num-layers', training.recompute_layers);
    } else {
      add('--recompute-method', 'uniform');
      add('--recompute-num-layers', 1);
    }
  } else if (recomputeModules(training).length > 0) {
    // selective recompute of exactly the modules estimated (core_attn: the
    // attention core of training.recompute selective)
    add('--recompute-granularity', 'selective');
    add('--recompute-modules', recomputeModules(training).join(' '));
  } else if (training.recompute === 'selective_op') {
    notes.push('Megatron-LM has no per-op recompute (torchtitan\'s selective_op): no recompute flag is set; ' +
      '--recompute-granularity selective recomputes the attention core only');
  }

  // Megatron-Core's cpu_offloading: arguments.py makes --cpu-offloading-num-layers
  // (generated from TransformerConfig) switch it on; cpu_offloading itself has no flag
  if (training.offload_layers > 0) add('--cpu-offloading-num-layers', training.offload_layers);
  // per-layer graphs, or the whole step (training.cuda_graphs)
  if (training.cuda_graphs === 'layers') add('--cuda-graph-impl', 'local');
  if (training.cuda_graphs === 'full') add('--cuda-graph-impl', 'full_iteration');

  const p = training.precision;
  if (p.weights === 'bf16') add('--bf16');
  if (p.weights === 'fp16') add('--fp16');
  if (p.fp4) {
    // NVFP4 GEMMs (Transformer Engine's NVFP4BlockScaling); arguments.py
    // refuses --fp8-format beside --fp4-format
    add('--fp4-format', 'e2m1');
    add('--fp4-recipe', 'nvfp4');
  } else if (p.fp8) {
    // e4m3 forward and e5m2 backward (HYBRID); Megatron-LM's recipes are
    // the estimate's but rowwise, which is torchao's
    const recipe = p.fp8_recipe ?? 'delayed';
    add('--fp8-format', 'hybrid');
    add('--fp8-recipe', recipe === 'rowwise' ? 'tensorwise' : recipe);
    if (recipe === 'rowwise') notes.push('fp8 rowwise: torchao\'s recipe, not Megatron-LM\'s; tensorwise is the nearest');
  }
  if (p.fp8 && p.fp8_activations === false) {
    notes.push('bf16 saved inputs of the linear layers (fp8_activations false): Transformer Engine keeps them in fp8');
  }
  // Megatron-Core fuses SwiGLU by default (bias_swiglu_fusion)
  if (model.arch === 'llama' && training.fused_swiglu === false) add('--no-bias-swiglu-fusion');
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
  const header = headerLines(result, 'Megatron-LM').map((line) => `# ${line}`);
  return { text: [...header, [launcher, ...args].join(' \\\n  ')].join('\n'), notes };
}

/** Multi-head latent attention (DeepSeek-V2/V3) in Megatron-LM's names:
 * qk-head-dim is the part without rotary, qk-pos-emb-head-dim the rotary
 * part; no --q-lora-rank projects queries directly. */
function megatronMla(mla, add) {
  add('--multi-latent-attention');
  if (mla.q_lora_rank > 0) add('--q-lora-rank', mla.q_lora_rank);
  add('--kv-lora-rank', mla.kv_lora_rank);
  add('--qk-head-dim', mla.qk_nope_head_dim);
  add('--qk-pos-emb-head-dim', mla.qk_rope_head_dim);
  add('--v-head-dim', mla.v_head_dim);
}

/** The experts, the router and their layers. Megatron-LM's shared experts
 * are one MLP as wide as all of them together. The estimate's expert
 * traffic is the dispatch and combine of parallel.ep_dispatcher (time.c):
 * Megatron-LM's alltoall token dispatcher, or its flex one over DeepEP. */
function megatronMoe(model, training, plan, parallel, add, notes) {
  const { moe } = model;
  add('--num-experts', moe.experts);
  add('--moe-router-topk', moe.experts_per_token);
  add('--moe-ffn-hidden-size', moe.expert_ffn_hidden);
  if (moe.shared_experts > 0) add('--moe-shared-expert-intermediate-size', moe.shared_experts * moe.shared_ffn_hidden);
  add('--moe-layer-freq', megatronMoeLayerFreq(moe, model.layers));
  if (parallel.ep_dispatcher === 'flex') {
    add('--moe-token-dispatcher-type', 'flex');
    add('--moe-flex-dispatcher-backend', 'deepep');
  } else {
    add('--moe-token-dispatcher-type', 'alltoall');
  }
  add('--moe-grouped-gemm');
  if (training.grouped_gemm) {
    notes.push('the estimate counts one grouped kernel per expert matrix (training.grouped_gemm); Megatron-LM\'s ' +
      'Transformer Engine GroupedLinear launches one GEMM per local expert');
  }
  notes.push(`the estimate assumes the busiest expert receives ${training.capacity_factor}x an even share of tokens ` +
    '(training.capacity_factor); Megatron-LM drops no tokens by default, so the balance is its router\'s');
  if (plan.tp > 1 && !plan.sp) notes.push('Megatron-LM needs --sequence-parallel for MoE with tp > 1');
}

/** A DeepSpeed config (the file given to deepspeed.initialize). tp, pp and
 * cp are not part of it: the model code (Megatron-DeepSpeed: the arguments
 * above) sets them, and so are the experts (deepspeed.moe.layer.MoE), which
 * the comments above the JSON spell out. */
export function deepspeedConfig(result) {
  const { model, training, parallel, plan, accumulation } = facts(result);
  const notes = ['tensor, pipeline and context parallel sizes are set by the model code ' +
    '(Megatron-DeepSpeed: the Megatron-LM arguments), not by this file'];
  const comments = headerLines(result, 'DeepSpeed');
  noteFramework(training, notes, ['deepspeed']);
  noteSumma(parallel, notes, 'DeepSpeed');
  const stage = zeroStage(parallel);
  const zero = { stage, overlap_comm: true, contiguous_gradients: true };
  if (parallel.sharding === 'fsdp_hybrid_shard') {
    zero.mics_shard_size = plan.shard_factors.optimizer; // MiCS: ZeRO-3 inside groups, replicated across
  }
  // the estimate keeps optimizer states and weights on the GPU
  zero.offload_optimizer = { device: 'none' };
  if (stage === 3) zero.offload_param = { device: 'none' };
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
  if (model.moe) {
    // DeepSpeed-MoE's layer arguments, and Megatron-DeepSpeed's flags for them
    const { experts, experts_per_token: k } = model.moe;
    comments.push(`MoE in the model code: deepspeed.moe.layer.MoE(num_experts=${experts}, ep_size=${plan.ep}, ` +
      `k=${k}); Megatron-DeepSpeed: --num-experts ${experts} --moe-expert-parallel-size ${plan.ep} --topk ${k}`);
    notes.push(`MoE: ${experts} experts, top-${k}, expert parallel ${plan.ep}, set in the model code ` +
      '(deepspeed.moe.layer.MoE), as the comment above the JSON says');
    if (plan.etp > 1) notes.push(`expert tensor parallel ${plan.etp}: DeepSpeed-MoE splits experts over ep only`);
  }
  if (model.attention === 'mla') {
    notes.push('multi-head latent attention: DeepSpeed has no option for it; the model code must provide it');
  }
  if (model.dropout === false) notes.push('dropout: set 0 in the model code (the estimate stores no dropout masks)');
  if (training.recompute === 'selective_op') {
    notes.push('DeepSpeed has no per-op recompute (torchtitan\'s selective_op): deepspeed.checkpointing ' +
      'recomputes whole blocks the model code wraps');
  } else if (training.recompute !== 'none') {
    notes.push(`${training.recompute} recompute is switched on in the model code (deepspeed.checkpointing)`);
  }
  if (p.fp8) notes.push('fp8: through Transformer Engine in the model code');
  noteOnlyMegatron(training, parallel, notes, 'DeepSpeed');
  if (p.fp8_params) {
    notes.push('fp8 weights: DeepSpeed keeps 16-bit weights; Transformer Engine\'s fp8_model_init in the model ' +
      'code would make them fp8, which ZeRO does not gather');
  }
  if (training.offload_layers > 0) {
    notes.push(`activation offloading (${training.offload_layers} layers): DeepSpeed has no layer offloading ` +
      'without recompute; its activation_checkpointing.cpu_checkpointing moves recompute\'s checkpoints to the host');
  }
  const text = [...comments.map((line) => `// ${line}`), JSON.stringify(config, null, 2)].join('\n');
  return { text, notes };
}

/** torchtitan's model and flavor of each preset it ships
 * (torchtitan/models/<name>/__init__.py at e347b1e). */
const TORCHTITAN_FLAVORS = {
  'llama-3.1-8b': ['llama3', '8B'], 'llama-3.1-70b': ['llama3', '70B'], 'llama-3.1-405b': ['llama3', '405B'],
  'deepseek-v3': ['deepseek_v3', '671B'], 'deepseek-v2-lite': ['deepseek_v3', '16B'],
  'qwen3-30b-a3b': ['qwen3', '30B-A3B'], 'qwen3-235b-a22b': ['qwen3', '235B-A22B'],
};

/** The estimate's architecture in torchtitan's model-args names (its
 * Llama 3 and DeepSeek-V3 args, MoEArgs for the experts): the TOML cannot
 * set them, the flavor does, so they are comments to check it against. */
function torchtitanModelArgs(model) {
  const args = [['dim', model.hidden], ['n_layers', model.layers], ['n_heads', model.heads]];
  if (model.attention === 'mla') {
    const { mla } = model;
    args.push(['q_lora_rank', mla.q_lora_rank], ['kv_lora_rank', mla.kv_lora_rank],
      ['qk_nope_head_dim', mla.qk_nope_head_dim], ['qk_rope_head_dim', mla.qk_rope_head_dim], ['v_head_dim', mla.v_head_dim]);
  } else {
    args.push(['n_kv_heads', model.kv_heads]);
    if (model.head_dim) args.push(['head_dim', model.head_dim]);
  }
  args.push(['inter_dim', model.ffn_hidden], ['vocab_size', model.vocab], ['enable_weight_tying', model.tied_embeddings]);
  if (model.moe) {
    // torchtitan's shared experts are as wide as its routed ones
    const { moe } = model;
    args.push(['moe_inter_dim', moe.expert_ffn_hidden], ['n_dense_layers', moe.first_dense],
      ['moe_args.num_experts', moe.experts], ['moe_args.top_k', moe.experts_per_token],
      ['moe_args.num_shared_experts', moe.shared_experts]);
    if (moe.every > 1) args.push(['interleave_moe_layer_step', moe.every]); // Llama 4's args
  }
  return args;
}

/** A torchtitan job config (its TOML, as job_config.py at e347b1e reads
 * it): the [model], [training], [parallelism] and [activation_checkpoint]
 * sections and fp8's; the rest stays as in your file. */
export function torchtitanToml(result) {
  const f = facts(result);
  const { model, training, parallel, plan, layersPerChunk } = f;
  const notes = [];
  noteFramework(training, notes, ['torchtitan']);
  noteSumma(parallel, notes, 'torchtitan');
  notePlacement(parallel, notes, 'torchtitan', 'tp-cp-dp-pp');
  if (model.window_tokens) {
    notes.push(`sliding-window attention (${model.window_tokens} tokens): torchtitan's Llama attends over the ` +
      'whole sequence, which the estimate does not count');
  }
  // The core's shard factors count dp·cp ranks; torchtitan's shard degree
  // counts dp ranks and shards over cp as well.
  let replicate = plan.dp, shard = 1;
  const stage = zeroStage(parallel);
  if (parallel.sharding === 'fsdp_hybrid_shard') {
    // the group is the optimizer's factor: under pipeline parallelism
    // torchtitan keeps the weights whole through the step (pp_gather_once)
    const group = plan.shard_factors.optimizer;
    shard = Math.max(1, group / plan.cp);
    replicate = plan.dp / shard;
    if (!Number.isInteger(shard) || !Number.isInteger(replicate)) {
      notes.push(`hybrid groups of ${group} GPUs do not split cp ${plan.cp} evenly`);
    }
  } else if (stage > 0) {
    replicate = 1;
    shard = plan.dp;
  }
  if (parallel.sharding === 'zero' && stage === 1) {
    notes.push('ZeRO-1: torchtitan shards with FSDP2; the nearest is not resharding after forward (ZeRO-2)');
  }
  const lines = headerLines(result, 'torchtitan').map((line) => `# ${line}`);
  const flavor = TORCHTITAN_FLAVORS[model.name];
  lines.push('', '[model]');
  if (flavor) lines.push(`name = "${flavor[0]}"`, `flavor = "${flavor[1]}"`);
  else notes.push(`${model.name}: torchtitan ships no flavor of it; its model args are the comments under [model]`);
  if (training.precision.fp8) lines.push('converters = ["quantize.linear.float8"]');
  lines.push(`# the estimate's architecture, which the flavor must match:`,
    ...torchtitanModelArgs(model).map(([k, v]) => `# ${k} = ${v}`));
  if (model.dropout) notes.push('dropout: torchtitan\'s models have none, the estimate counts its masks');
  if (model.moe?.shared_experts > 0 && model.moe.shared_ffn_hidden !== model.moe.expert_ffn_hidden) {
    notes.push(`shared experts ${model.moe.shared_ffn_hidden} wide: torchtitan's are as wide as the routed ones ` +
      `(${model.moe.expert_ffn_hidden})`);
  }

  // With pipeline parallelism one step is one pass of local_batch_size
  // samples cut into micro-batches; without it, local_batch_size is the
  // micro-batch and torchtitan accumulates up to the global batch.
  const local = plan.pp > 1 ? training.global_batch / plan.dp : training.micro_batch;
  const schedule = { '1f1b': '1F1B', interleaved: 'Interleaved1F1B', gpipe: 'GPipe' }[plan.schedule];
  const param = TORCH_DTYPE[training.precision.weights];
  if (param === 'float16') notes.push('fp16 weights: torchtitan\'s mixed_precision_param is bfloat16 or float32');
  lines.push(
    '',
    '[training]',
    `local_batch_size = ${local}`,
    `global_batch_size = ${training.global_batch}`,
    `seq_len = ${training.seq_len}`,
    `mixed_precision_param = "${param}"`,
    `mixed_precision_reduce = "float32"`,
    '',
    '[parallelism]',
    `data_parallel_replicate_degree = ${replicate}`,
    `data_parallel_shard_degree = ${shard}`,
    `tensor_parallel_degree = ${plan.tp}`,
    `context_parallel_degree = ${plan.cp}`,
    `pipeline_parallel_degree = ${plan.pp}`,
  );
  if (model.moe) {
    // torchtitan's expert parallelism borrows its ranks from the data-parallel
    // shard and context-parallel ranks; its expert tensor parallel is 1 or tp
    lines.push(`expert_parallel_degree = ${plan.ep}`, `expert_tensor_parallel_degree = ${plan.etp}`);
    if (plan.etp !== 1 && plan.etp !== plan.tp) notes.push(`etp ${plan.etp}: torchtitan takes 1 or tp (${plan.tp})`);
  }
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
  // ZeRO-1 and 2 keep the weights gathered from forward to backward; ZeRO-3
  // gathers them again for the backward, which torchtitan's "default" does
  // not do under pipeline parallelism
  if (shard > 1) lines.push(`fsdp_reshard_after_forward = "${stage === 3 ? 'always' : 'never'}"`);
  if (plan.tp > 1) lines.push(`enable_async_tensor_parallel = ${Boolean(parallel.tp_overlap)}`);
  if (plan.tp > 1 && !plan.sp) notes.push('torchtitan always splits norms over tp (sequence parallel)');
  // selective_ac_option "op" is torchtitan's per-op policy (the estimate's
  // selective_op); it has no mode that recomputes only the attention core
  const op = training.recompute === 'selective_op' || training.recompute === 'selective';
  lines.push('', '[activation_checkpoint]', `mode = "${op ? 'selective' : training.recompute}"`);
  if (op) lines.push('selective_ac_option = "op"');
  if (training.recompute === 'selective') {
    notes.push('torchtitan has no attention-core recompute: its per-op policy is set, which the estimate ' +
      'models as training.recompute "selective_op"');
  }
  if (training.recompute === 'full' && training.recompute_layers > 0) {
    notes.push(`full recompute of ${training.recompute_layers} layers a stage: torchtitan recomputes every layer`);
  }
  noteOnlyMegatron(training, parallel, notes, 'torchtitan');
  if (training.precision.fp8 && training.precision.fp8_activations !== false) {
    notes.push('fp8 saved inputs: torchao\'s Float8Linear keeps the linear layers\' inputs in bf16 (fp8_activations false)');
  }
  // torch.compile fuses the norms, rotary and SwiGLU that eager PyTorch runs
  // apart (training.eager)
  lines.push('', '[compile]', `enable = ${!training.eager}`);
  if (training.precision.fp8) {
    // torchao's float8 with FSDP2 gathers the weights in fp8 but keeps them in
    // high precision: the gather's bytes match, the stored weights do not
    lines.push('', '[quantize.linear.float8]', `enable_fsdp_float8_all_gather = ${Boolean(training.precision.fp8_params)}`);
    const recipe = training.precision.fp8_recipe ?? 'tensorwise';
    if (recipe === 'rowwise') lines.push('recipe_name = "rowwise"');
    else if (recipe !== 'tensorwise') notes.push(`fp8 ${recipe}: torchao's float8 scales per tensor or per row; tensorwise is the nearest`);
    if (model.moe) notes.push('fp8 experts: add "quantize.grouped_mm.float8" to converters');
  }
  if (training.precision.fp8_params) {
    notes.push('fp8 weights: torchtitan gathers them in fp8 (enable_fsdp_float8_all_gather) but keeps the ' +
      'sharded weights in high precision, 2 bytes a parameter more than estimated');
  }
  if (training.offload_layers > 0) {
    notes.push(`activation offloading (${training.offload_layers} layers): torchtitan has no equivalent; ` +
      'its activations stay on the GPU');
  }
  if (model.arch !== 'llama') notes.push('torchtitan trains Llama-style models; a GPT architecture needs its own model code');
  return { text: lines.join('\n'), notes };
}
