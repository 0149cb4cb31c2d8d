// explain.js: how each headline number, each part of the step time and
// each memory item and line of Other of a stage (the peak one unless another
// is asked for) follows from the estimate's inputs: the formula, the values put
// into it (all read from the core's output), what it gives, and where the
// formula comes from. The arithmetic here repeats the core's last step on
// the figures it reports, so tests/web/explain.test.mjs can hold each
// explanation to the number it explains.

import { GIB } from './format.js';
import { TIME_ITEMS, hasExperts, memoryItems } from './items.js';

/** Values per token the LM head writes (Fujii et al. 2024 eq. 14's v): the
 * vocabulary, or a ViT head's patch values. */
const outputWidth = (model) => (model.arch === 'vit' ? model.patch_dim : model.vocab);

/** @typedef {{title: string, formula: string, values: [string, string, number][], value: number|null,
 *   reported: number, unit: string, cite: string}} Explanation
 * value: the formula worked out here on the values (null where the values
 * listed do not determine it); reported: the core's figure, which the page
 * shows (the two agree to rounding). */

/** The explanations of a result (and stage) as a lookup by key, worked out
 * on its first use: a page holds some twenty disclosures and opens few, so
 * Explain asks for its body only once it is opened. */
export function explainer(result, stageName) {
  let all = null;
  return (key) => (all ??= explanations(result, stageName))[key];
}

/** Explanations keyed by the figure they explain; the memory items (and
 * the lines of Other, keyed `other.<line>`) of the stage named, by default
 * the peak one. */
export function explanations(result, stageName = result.memory.peak_stage) {
  const { config, plan, memory, time, throughput: t } = result;
  const { training, model, system } = config;
  const stage = memory.stages.find((s) => s.name === stageName) || memory.stages[0];
  const bpp = memory.bytes_per_param;
  const f = plan.shard_factors;
  const gpus = system.gpus;
  const peak = system.gpu.tensor_tflops * 1e12;
  const tokensPerStep = training.global_batch * training.seq_len;
  // with routed experts, the first four items are the rest of the model
  // and the experts have their own line (items.js): each item reports
  // what the page shows for it
  const e = stage.experts;
  const moe = hasExperts(result);
  const dense = stage.params - (moe ? e.params : 0);
  const shown = Object.fromEntries(memoryItems(result).map(([key, , bytes]) => [key, bytes(stage)]));
  const p = ['P', `parameters on one GPU of the ${stage.name} stage${moe ? ', routed experts aside' : ''}`, dense];
  const items = {
    weights_bytes: {
      title: 'Weights', unit: 'bytes',
      formula: 'P × (bytes per weight + fp8 copies) / s_w',
      values: [p, ['bytes per weight', training.precision.weights, bpp.weights], ['fp8 copies', 'bytes', bpp.fp8_weights],
        ['s_w', 'GPUs the weights are sharded over', f.weights]],
      value: (dense * (bpp.weights + bpp.fp8_weights)) / f.weights,
      reported: shown.weights_bytes,
      cite: 'Fujii et al. 2024 eq. 10 (model states), Chen et al. 2023 §IV-C (sharding factors)',
    },
    gradients_bytes: {
      title: 'Gradients', unit: 'bytes',
      formula: 'P × bytes per gradient / s_g',
      values: [p, ['bytes per gradient', training.precision.gradients, bpp.gradients], ['s_g', 'GPUs the gradients are sharded over', f.gradients]],
      value: (dense * bpp.gradients) / f.gradients,
      reported: shown.gradients_bytes,
      cite: 'Fujii et al. 2024 eq. 10, Chen et al. 2023 §IV-C',
    },
    optimizer_bytes: {
      title: 'Optimizer', unit: 'bytes',
      formula: 'P × (optimizer states + master weights) / s_os',
      values: [p, ['optimizer states', `bytes per parameter (${training.optimizer})`, bpp.optimizer_states],
        ['master weights', 'bytes per parameter', bpp.master_weights], ['s_os', 'GPUs the optimizer is sharded over', f.optimizer]],
      value: (dense * (bpp.optimizer_states + bpp.master_weights)) / f.optimizer,
      reported: shown.optimizer_bytes,
      cite: 'Fujii et al. 2024 eq. 10 (12 B of Adam in fp32 over dp·cp with the distributed optimizer), Chen et al. 2023 §IV-C',
    },
    activations_bytes: activationsPart(result, stage, moe ? e.activations_bytes : 0, shown.activations_bytes),
    other_bytes: {
      title: 'Other', unit: 'bytes',
      formula: 'CUDA context + NCCL buffers + loss workspace + backward workspace + gathered weights + gradient bucket + fragmentation',
      values: Object.entries(stage.other).map(([k, v]) => [k.replace(/_bytes$/, '').replaceAll('_', ' '), 'bytes', v]),
      value: Object.values(stage.other).reduce((a, b) => a + b, 0),
      reported: stage.other_bytes,
      cite: 'the line items and their assumptions below; Fujii et al. 2024 §4.1 leaves 20% for them',
    },
    step_s: {
      title: 'Step time', unit: 's',
      formula: 'compute + exposed tp, cp, expert all-to-all, pp and dp communication + exposed host copies + pipeline bubble + optimizer step + data loader wait + host overhead',
      values: [['compute', 's', time.compute_s], ['tp', 's', time.tp_comm_s], ['cp', 's', time.cp_comm_s],
        ['expert all-to-all', `dispatch and combine over ep ${plan.ep ?? 1}`, time.ep_comm_s], ['pp', 's', time.pp_comm_s],
        ['dp', 's', time.dp_comm_s], ['host copies (offload)', 's', time.offload_s ?? 0], ['bubble', `(p − 1)/v of one micro-batch's forward and backward, p ${plan.pp}`, time.bubble_s],
        ['optimizer', 's', time.optimizer_s], ['data loader wait', 's', time.data_wait_s],
        ['host overhead', 's', time.step_overhead_s]],
      value: TIME_ITEMS.reduce((sum, [key]) => sum + (time[key] ?? 0), 0),
      reported: time.step_s,
      cite: 'Narayanan et al. 2021 §2.2 (bubble) and §3 (tp, pp traffic), Subramanian et al. 2024 §S2 and Table I (roofline, collectives), Wang et al. 2025 (overlap of sharded weights)',
    },
    tokens_per_s_per_gpu: {
      title: 'Tokens/s per GPU', unit: 'tokens/s',
      formula: 'global batch × sequence length / (step time × GPUs)',
      values: [['global batch', 'samples', training.global_batch], ['sequence length', 'tokens', training.seq_len],
        ['step time', 's', time.step_s], ['GPUs', '', gpus]],
      value: tokensPerStep / (time.step_s * gpus),
      reported: t.tokens_per_s_per_gpu,
      cite: 'definition',
    },
    mfu: {
      title: 'MFU', unit: '',
      formula: 'model FLOPs per step / (step time × GPUs × peak tensor FLOP/s)',
      values: [['model FLOPs per step', 'forward and backward, attention over all keys, no recompute', t.model_flop_per_step],
        ['step time', 's', time.step_s], ['GPUs', '', gpus], ['peak', `${system.gpu.name} dense bf16 FLOP/s`, peak]],
      value: t.model_flop_per_step / (time.step_s * gpus * peak),
      reported: t.mfu,
      cite: 'Narayanan et al. 2021 §5.1 (its 96 B s l h²(1 + s/6h + V/16lh) counts recompute too: that is HFU); MFU as defined for PaLM (Chowdhery et al. 2022)',
    },
    time_to_train_days: {
      title: 'Time to train', unit: 'days',
      formula: 'tokens to train / (tokens/s per GPU × GPUs) / 86,400',
      values: [['tokens to train', '', training.train_tokens], ['tokens/s per GPU', '', t.tokens_per_s_per_gpu], ['GPUs', '', gpus]],
      value: training.train_tokens / (t.tokens_per_s_per_gpu * gpus) / 86400,
      reported: t.time_to_train_days,
      cite: 'definition',
    },
  };
  Object.assign(items, timeParts(result), otherLines(result, stage));
  if (moe) {
    const x = plan.expert_shard_factors;
    const pe = ['P_e', `routed expert parameters on one GPU: E/ep experts of ${e.moe_layers} MoE layers, each split over etp ${plan.etp}`, e.params];
    items.experts_bytes = {
      title: 'Experts', unit: 'bytes',
      formula: 'P_e × (weight + fp8 copies) / s_w,e + P_e × gradient / s_g,e + P_e × (optimizer + master) / s_os,e + routed activations',
      values: [pe, ['weight + fp8 copies', 'bytes per parameter', bpp.weights + bpp.fp8_weights],
        ['gradient', 'bytes per parameter', bpp.gradients],
        ['optimizer + master', 'bytes per parameter', bpp.optimizer_states + bpp.master_weights],
      ['s_w,e', `GPUs the expert weights are sharded over, of the experts' own data parallel edp ${plan.edp}`, x.weights],
      ['s_g,e', 'GPUs the expert gradients are sharded over', x.gradients],
      ['s_os,e', 'GPUs the expert optimizer states are sharded over', x.optimizer],
      ['routed activations', `k copies of each token × capacity factor ${training.capacity_factor}: expert input and SwiGLU${training.routing_weights_in_activation ? '' : ', and the output the combine weighs'}${model.moe?.glu_clamp && training.unfused_expert_extras && !training.recompute_moe_act ? ', and the clamp\'s input beside its output' : ''}`, e.activations_bytes]],
      value: e.params * (bpp.weights + bpp.fp8_weights) / x.weights + e.params * bpp.gradients / x.gradients
        + e.params * (bpp.optimizer_states + bpp.master_weights) / x.optimizer + e.activations_bytes,
      reported: shown.experts_bytes,
      cite: 'Megatron-Core MoE (expert parallel, expert data parallel = tp·cp·dp/(ep·etp)); Fujii et al. 2024 eq. 10 per state',
    };
  }
  return items;
}

/** The step-time parts: each is what one micro-batch on the slowest stage
 * spends on it, times the micro-batches of a step (the core's
 * time.micro_batch_* figures), dp adding its once-per-step part, the bubble
 * (p − 1)/v micro-batch times and the optimizer its bytes over HBM. */
function timeParts(result) {
  const { config, plan, time } = result;
  const m = ['m', `micro-batches per step, global batch / (micro-batch × dp ${plan.dp})`, plan.micro_batches];
  const part = (title, key, perKey, what, cite) => ({
    title, unit: 's', formula: `m × ${what} of one micro-batch on the slowest stage`,
    values: [m, [what, 's', time[perKey]]], value: plan.micro_batches * time[perKey], reported: time[key], cite,
  });
  const compute = part('Compute', 'compute_s', 'micro_batch_compute_s',
    'forward and backward' + (config.training.recompute === 'none' ? '' : ' with recompute'),
    'Subramanian et al. 2024 §S1 (roofline per operation: kernel latency + FLOPs at matmul efficiency, or bytes at HBM bandwidth); Narayanan et al. 2021 §5.1 (FLOPs); '
      + `on the slowest of the job's ${config.system.gpus} GPUs, whose GEMMs and attention take ${(100 * time.slowest_gpu_slowdown).toFixed(1)}% longer `
      + 'than a typical GPU\'s (system.gpu.compute_spread; Sinha et al. 2022)');
  if (time.weight_cast_s > 0) { // fp8's weight cache: the weights cast once a step
    compute.formula += ' + the weights cast to fp8 once a step';
    compute.values.push(['weights cast to fp8', 's', time.weight_cast_s]);
    compute.value += time.weight_cast_s;
  }
  const ep = part('Expert all-to-all', 'ep_comm_s', 'micro_batch_ep_s', `dispatch and combine over ep ${plan.ep ?? 1}`,
    'Megatron-Core MoE (all-to-all token dispatch); Subramanian et al. 2024 §S2 (two tiers)');
  if (time.ep_step_s !== undefined) { // parallel.ep_overlap: the micro-batch directions that run alone
    ep.formula += ' + the all-to-alls of the directions that run alone, p micro-batches each way (the pipeline\'s fill and drain)';
    ep.values.push(['once per step', 's', time.ep_step_s]);
    ep.value += time.ep_step_s;
    ep.cite += '; Megatron-Core combined_1f1b.py and schedules.py (the warm-up forwards and cool-down backwards have no partner)';
  }
  return {
    compute_s: compute,
    tp_comm_s: part('Tensor parallel', 'tp_comm_s', 'micro_batch_tp_s',
      plan.tp_algorithm === 'summa' ? 'SUMMA broadcasts and all-reduces left exposed' : `collectives over tp ${plan.tp} (not overlapped)`,
      plan.tp_algorithm === 'summa' ? 'Subramanian et al. 2024 Table A2 and Algorithm 1' : 'Narayanan et al. 2021 §3 (two all-reduces each way per layer), Subramanian et al. 2024 Table I and §S2 (ring costs)'),
    cp_comm_s: part('Context parallel', 'cp_comm_s', 'micro_batch_cp_s', `K/V exchange over cp ${plan.cp}`,
      'Subramanian et al. 2024 Table II (K/V all-gathers over n2), §S2 (ring costs)'),
    ep_comm_s: ep,
    pp_comm_s: part('Pipeline p2p', 'pp_comm_s', 'micro_batch_p2p_s', 'sends to the neighbouring stages',
      'Narayanan et al. 2021 §3 (b·s·h/t per send, scatter/gather)'),
    // written by the core only with training.offload_layers
    ...(time.offload_s === undefined ? {} : { offload_s: part('Host copies (offload)', 'offload_s', 'micro_batch_offload_s',
      `copies of ${config.training.offload_layers} layers' activations to and from host memory at ${config.system.gpu.host_gb_per_s} GB/s left exposed`,
      'Transformer Engine cpu_offload.py (DefaultOffloadSynchronizer: each copy hides behind the other layers); Megatron-Core cpu_offloading') }),
    dp_comm_s: {
      title: 'Data parallel', unit: 's',
      formula: 'm × sharded-state transfers one micro-batch leaves exposed + the step\'s gradient reduction and parameter gather left after overlap',
      values: [m, ['per micro-batch', 's', time.micro_batch_dp_s], ['once per step', 's', time.dp_step_s]],
      value: plan.micro_batches * time.micro_batch_dp_s + time.dp_step_s,
      reported: time.dp_comm_s,
      cite: 'Wang et al. 2025 (T = max(T_fwd, T_transfer) + max(T_bwd, T_transfer)), Chen et al. 2023 §IV-C (T_p, T_g, T_os)',
    },
    bubble_s: {
      title: 'Pipeline bubble', unit: 's',
      formula: '(p − 1)/v × one micro-batch\'s forward, backward and sends, averaged over the stages',
      values: [['p', 'pipeline stages', plan.pp], ['v', 'model chunks per GPU', plan.virtual_stages],
        ['micro-batch time', 's, the stages averaged', time.bubble_micro_batch_s]],
      value: plan.pp > 1 ? (plan.pp - 1) / plan.virtual_stages * time.bubble_micro_batch_s : 0,
      reported: time.bubble_s,
      cite: 'Narayanan et al. 2021 §2.2 (bubble (p − 1)/m of the ideal step, divided by v when interleaved)',
    },
    optimizer_s: {
      title: 'Optimizer step', unit: 's',
      formula: 'bytes the optimizer reads and writes / HBM bandwidth',
      values: [['bytes', 'states and master weights twice, gradients and weights once, as sharded', time.optimizer_bytes],
        ['HBM bandwidth', `${config.system.gpu.name} bytes/s`, config.system.gpu.hbm_gb_per_s * 1e9]],
      value: time.optimizer_bytes / (config.system.gpu.hbm_gb_per_s * 1e9),
      reported: time.optimizer_s,
      cite: 'a memory-bound element-wise update (Subramanian et al. 2024 §S1 roofline)',
    },
    data_wait_s: {
      title: 'Data loader wait', unit: 's',
      formula: 'm × (one micro-batch\'s delivery by the data loader − the slowest stage\'s own time for it), when the loader is the slower',
      values: [m, ['delivery', `s: b × (28 B a token${config.training.dataloader_mask ? ' + the s × s mask' : ''}) / ${config.system.loader_gb_per_s} GB/s`,
        time.micro_batch_loader_s], ['own time', 's: forward, backward, sends and exposed transfers', time.micro_batch_s]],
      value: plan.micro_batches * Math.max(0, time.micro_batch_loader_s - time.micro_batch_s),
      reported: time.data_wait_s,
      cite: 'Megatron-LM builds an s × s mask per sample in its data loader by default (Megatron-LM issue #1025); fitted on Fujii et al. 2024 Tables 10 and 11',
    },
    step_overhead_s: {
      title: 'Host overhead', unit: 's',
      formula: 'the host\'s fixed time per step (system.step_overhead_s): the framework\'s Python around the optimizer step, the loss\'s synchronisation, the next step\'s launch',
      values: [['per step', 's', config.system.step_overhead_s]],
      value: config.system.step_overhead_s,
      reported: time.step_overhead_s,
      cite: 'fitted on the short steps of Wang et al. 2025 (FSDP) and Chen et al. 2023 (AMSP), with Fujii et al. 2024 and Narayanan et al. 2021; 0 for a loop whose GPU never idles',
    },
  };
}

/** Activations: one layer's bytes (activation_parts) times the layers in
 * flight, as the recompute mode keeps them, plus the embedding and LM head;
 * with routed experts their copies are on the Experts line. */
function activationsPart(result, stage, routed, reported) {
  const { config, plan } = result;
  const { training, model } = config;
  const a = stage.activation_parts;
  const n = stage.layers_in_flight;
  const mode = training.recompute;
  const offloaded = a.offloaded_bytes ?? 0; // written only with training.offload_layers
  // full recompute of k of a stage's layers (0: all of them) re-runs a share r
  // of the layer sets; the others keep everything, as the stage's mix of layers
  const k = training.recompute_layers ?? 0;
  const r = k === 0 ? 1 : k / (model.layers / plan.pp);
  const partial = mode === 'full' && r < 1;
  const layers = n <= 0 ? 0
    : mode === 'full' ? r * n * a.layer_input_bytes + (1 - r) * n * (a.mean_layer_bytes + a.scores_bytes)
        + a.layer_bytes + a.scores_bytes - a.layer_input_bytes
      : mode === 'selective' ? n * a.layer_bytes + a.scores_bytes
        : mode === 'selective_op' ? n * a.op_layer_bytes + a.layer_bytes + a.scores_bytes - a.op_layer_bytes
          : n * (a.layer_bytes + a.scores_bytes);
  const formula = {
    none: 'n × (layer + scores)',
    selective: 'n × layer + scores (the scores of one layer, recomputed in its backward)',
    selective_op: 'n × per-op part + layer − per-op part (the rest of one layer, recomputed in its backward)',
    full: partial
      ? 'r·n × layer input + (1 − r)·n × (mean layer + scores) + layer + scores − layer input (one layer re-run at a time)'
      : '(n − 1) × layer input + layer + scores (one layer re-run at a time)',
  }[mode];
  const tokens = `s·b/(t·c) = ${training.seq_len}·${training.micro_batch}/(${plan.tp}·${plan.cp}) tokens`;
  return {
    title: 'Activations', unit: 'bytes',
    formula: `${formula} + embedding + LM head${offloaded > 0 ? ' − offloaded layers (in host memory)' : ''}`
      + `${routed > 0 ? ' − routed copies (on the Experts line)' : ''}`,
    values: [
      ['n', `layers in flight: ${stage.micro_batches_in_flight} micro-batch${stage.micro_batches_in_flight === 1 ? '' : 'es'} × ${stage.layers} layers (${plan.schedule})`, n],
      ['layer', `one layer's stored tensors for ${tokens}${mode === 'full' ? ', the stage\'s largest layer' : ''}`, a.layer_bytes],
      ['scores', training.flash_attention ? 'attention scores: none with FlashAttention' : 'one layer\'s attention scores (softmax and dropout)', a.scores_bytes],
      ['layer input', 'what full recompute keeps of each layer', a.layer_input_bytes],
      ...(mode === 'selective_op'
        ? [['per-op part', 'what torchtitan\'s per-op policy keeps of each layer: Q, V, attention output, W1 and W2 outputs, input', a.op_layer_bytes]]
        : []),
      ...(partial ? [['r', `share of the layers re-run: training.recompute_layers ${k} of ${model.layers / plan.pp} a stage`, r],
        ['mean layer', 'one layer\'s stored tensors averaged over the stage\'s dense and MoE layers: what a layer not re-run keeps',
          a.mean_layer_bytes]] : []),
      ['embedding', 'eq. 13, 8sbh/(tc) per micro-batch in flight on the first stage', a.embedding_bytes],
      ['LM head', `eq. 14, 4sbh(1 + v/h)/(tc) on the last stage, v ${outputWidth(model)}`, a.lm_head_bytes],
      ...(offloaded > 0 ? [['offloaded layers', `the sets of the first ${training.offload_layers} layers, kept in host memory between forward and backward (Transformer Engine cpu_offload)`, offloaded]] : []),
      ...(routed > 0 ? [['routed copies', 'the experts\' part, shown on their line', routed]] : [])],
    value: layers + a.embedding_bytes + a.lm_head_bytes - offloaded - routed,
    reported,
    cite: 'Fujii et al. 2024 eq. 12-17 (per layer, embedding, LM head, 1F1B in flight); Korthikanti et al. 2023 §4 (sequence parallel, selective and full recompute, interleaving)',
  };
}

/** The lines of Other on a stage, each from its assumption (overheads). */
function otherLines(result, stage) {
  const { config, plan, memory } = result;
  const { training, model, overheads: o } = config;
  const x = stage.other;
  const width = outputWidth(model);
  const tokens = (training.seq_len * training.micro_batch) / plan.cp;
  const moe = stage.experts.params > 0;
  const line = (key, title, formula, values, value, cite) => [`other.${key}`, {
    title, unit: 'bytes', formula, values, value, reported: x[key], cite,
  }];
  return Object.fromEntries([
    line('cuda_context_bytes', 'CUDA context', 'overheads.cuda_context_gib × 2³⁰',
      [['cuda_context_gib', 'GiB: context, kernels, cuBLAS workspace', o.cuda_context_gib]], o.cuda_context_gib * GIB,
      'measured on one H100: 739 MiB after the first bf16 matmul (tests/device/)'),
    line('nccl_bytes', 'NCCL buffers', 'communicators of size > 1 (tp, cp, pp, dp, dp·cp; ep, etp, edp) × per communicator',
      [['per communicator', 'GiB: 4 MiB × 16 channels × send and receive', o.nccl_gib_per_group],
        ['tp', 'group size', plan.tp], ['cp', 'group size', plan.cp], ['pp', 'group size', plan.pp], ['dp', 'group size', plan.dp]],
      null, 'NCCL_BUFFSIZE 4 MiB per channel (NCCL documentation)'),
    line('loss_workspace_bytes', 'Loss workspace', 'loss bytes per logit × s·b/c tokens × v / t, on the LM-head stage',
      [['loss bytes per logit', 'bf16 logits + a shifted fp32 copy', o.loss_bytes_per_logit], ['tokens', 's·b/c', tokens],
        ['v', model.arch === 'vit' ? 'patch values per token' : 'vocabulary', width], ['t', 'tensor parallel', plan.tp]],
      stage.activation_parts.lm_head_bytes > 0 ? (o.loss_bytes_per_logit * tokens * width) / plan.tp : 0,
      'cross-entropy beyond Fujii et al. 2024 eq. 14\'s fp32 logits'),
    line('backward_workspace_bytes', 'Backward workspace', 'backward layers × one layer\'s activations (its gradients, alive during its backward)',
      [['backward layers', 'overheads.backward_layers', o.backward_layers], ['layer', 'bytes, the stage\'s largest layer', stage.activation_parts.layer_bytes]],
      moe ? null : o.backward_layers * stage.activation_parts.layer_bytes, 'the gradient of a layer\'s activations, as large as they are'),
    line('gathered_params_bytes', 'Gathered weights', 'largest unit × ((1 + prefetch) × bytes per weight + bytes per gradient), with sharded weights',
      [['prefetch', 'units gathered ahead', o.prefetch_layers], ['bytes per weight', '', memory.bytes_per_param.weights],
        ['bytes per gradient', '', memory.bytes_per_param.gradients], ['s_w', 'GPUs the weights are sharded over', plan.shard_factors.weights]],
      plan.shard_factors.weights > 1 ? null : 0, 'Wang et al. 2025 (FSDP gathers a unit before its forward and backward)'),
    line('gradient_bucket_bytes', 'Gradient bucket', 'min(bucket, P) × bytes per gradient, with sharded gradients and whole weights',
      [['bucket', 'parameters (Megatron DDP\'s minimum)', o.bucket_params], ['P', 'parameters on one GPU of the stage', stage.params],
        ['bytes per gradient', '', memory.bytes_per_param.gradients]],
      plan.shard_factors.gradients > 1 && plan.shard_factors.weights === 1
        ? Math.min(o.bucket_params, stage.params) * memory.bytes_per_param.gradients : 0,
      'Megatron-LM distributed optimizer (grad buffer buckets before their reduce-scatter)'),
    line('fragmentation_bytes', 'Fragmentation', 'fragmentation × activations',
      [['fragmentation', 'allocator slack, fraction', o.fragmentation], ['activations', 'bytes, the stage\'s', stage.activations_bytes]],
      o.fragmentation * stage.activations_bytes, 'PyTorch caching allocator slack (our assumption, overheads.fragmentation)'),
  ]);
}
