// launch_formats.mjs: readers of the three launch formats web/src/launch.js
// writes, as each trainer reads them, and their way back to a trainplan
// config. Written here, apart from launch.js, so that a test that writes a
// plan out and reads it back checks the export against an independent
// reading of each format. Fields a format cannot hold (the GPU, a
// Megatron-LM run's vocabulary) come from `base`, the estimate exported.

/** "--flag value" pairs (bare flags as true) of a Megatron-LM argument
 * text, its torchrun sizes and its comment lines. */
export function parseArgs(text) {
  const args = { comments: [] };
  for (const line of text.split('\n')) {
    if (line.startsWith('# ')) {
      args.comments.push(line.slice(2));
      continue;
    }
    const launcher = line.match(/^torchrun --nproc-per-node (\d+) --nnodes (\d+) pretrain_gpt\.py \\$/);
    if (launcher) {
      args.torchrun = { perNode: Number(launcher[1]), nodes: Number(launcher[2]) };
      continue;
    }
    // a flag, then its value or values (nargs='+': --recompute-modules a b)
    const [flag, ...values] = line.replace(/\\$/, '').trim().split(/\s+/);
    args[flag] = values.length === 0 ? true : values.join(' ');
  }
  return args;
}

/** The key = value lines of a TOML snippet by section (dotted headers as
 * one key), its "# key = value" comment lines by section under '#', and its
 * comment lines before the first section as `comments`. */
export function parseToml(text) {
  const out = { comments: [], '#': {} };
  let section = null;
  for (const line of text.split('\n')) {
    const header = line.match(/^\[([\w.]+)\]$/);
    if (header) {
      out[(section = header[1])] = {};
      out['#'][section] = {};
    }
    const pair = line.match(/^(\w+) = (.+)$/);
    if (pair) out[section][pair[1]] = JSON.parse(pair[2]);
    const commented = line.match(/^# ([\w.]+) = (.+)$/);
    if (commented && section) out['#'][section][commented[1]] = JSON.parse(commented[2]);
    else if (line.startsWith('# ') && !section) out.comments.push(line.slice(2));
  }
  return out;
}

/** A DeepSpeed snippet as DeepSpeed's hjson reads it: its // comment lines,
 * and the JSON after them. */
export function parseDeepspeed(text) {
  const lines = text.split('\n');
  const comments = lines.filter((l) => l.startsWith('// ')).map((l) => l.slice(3));
  return { comments, config: JSON.parse(lines.filter((l) => !l.startsWith('//')).join('\n')) };
}

/** The model name and framework profile of a snippet's first comment. */
function header(comments) {
  const m = comments[0].match(/^trainplan: (\S+) on \d+ GPUs for [\w-]+, estimated with the (\S+) framework profile$/);
  if (!m) throw new Error(`no header: ${comments[0]}`);
  return { name: m[1], framework: m[2] };
}

/** A Python list expression of 0s and 1s as Megatron-LM's --moe-layer-freq
 * takes it ("([0]*3+[1]*58)"): lists, parentheses, + and * by a count. */
export function evalLayerPattern(text) {
  let i = 0;
  const expr = () => {
    let list = term();
    while (text[i] === '+') {
      i++;
      list = list.concat(term());
    }
    return list;
  };
  const term = () => {
    let list;
    if (text[i] === '(') {
      i++;
      list = expr();
      if (text[i++] !== ')') throw new Error(`")" expected at ${i} in ${text}`);
    } else {
      const close = text.indexOf(']', i);
      list = text.slice(i + 1, close).split(',').map(Number);
      i = close + 1;
    }
    if (text[i] === '*') {
      const count = text.slice(i + 1).match(/^\d+/)[0];
      i += 1 + count.length;
      list = Array.from({ length: Number(count) }, () => list).flat();
    }
    return list;
  };
  const list = expr();
  if (i !== text.length) throw new Error(`trailing text at ${i} in ${text}`);
  return list;
}

/** model.moe's every and first_dense from a layer pattern (1: MoE), which
 * must follow the core's rule exactly (model.c: layer i is MoE when
 * i >= first_dense and i - first_dense + 1 is a multiple of every). */
function moeLayers(pattern) {
  const moe = pattern.flatMap((x, i) => (x ? [i] : []));
  const every = moe.length > 1 ? moe[1] - moe[0] : 1;
  const firstDense = moe[0] - (every - 1);
  const rule = pattern.map((_, i) => (i >= firstDense && (i - firstDense + 1) % every === 0 ? 1 : 0));
  if (rule.join('') !== pattern.join('')) throw new Error(`not the core's MoE layers: ${pattern.join('')}`);
  return { every, first_dense: firstDense };
}

/** Megatron-LM arguments back to a config. */
export function configFromMegatron(text, base) {
  const a = parseArgs(text);
  const n = (flag) => Number(a[flag]);
  const { name, framework } = header(a.comments);
  const llama = a['--swiglu'] === true;
  const model = {
    name, arch: llama ? 'llama' : 'gpt', layers: n('--num-layers'), hidden: n('--hidden-size'),
    heads: n('--num-attention-heads'), ffn_hidden: n('--ffn-hidden-size'), vocab: base.config.model.vocab,
    tied_embeddings: a['--untie-embeddings-and-output-weights'] !== true,
    dropout: n('--hidden-dropout') > 0 && n('--attention-dropout') > 0,
    positions: llama ? 0 : n('--max-position-embeddings'),
  };
  if (a['--multi-latent-attention']) {
    model.attention = 'mla';
    model.mla = { q_lora_rank: a['--q-lora-rank'] ? n('--q-lora-rank') : 0, kv_lora_rank: n('--kv-lora-rank'),
      qk_nope_head_dim: n('--qk-head-dim'), qk_rope_head_dim: n('--qk-pos-emb-head-dim'), v_head_dim: n('--v-head-dim') };
  } else {
    model.attention = 'gqa';
    model.kv_heads = a['--group-query-attention'] ? n('--num-query-groups') : model.heads;
    if (a['--kv-channels']) model.head_dim = n('--kv-channels');
  }
  if (a['--num-experts']) {
    const freq = a['--moe-layer-freq'];
    const pattern = freq === '1' ? Array(model.layers).fill(1) : evalLayerPattern(JSON.parse(freq));
    if (pattern.length !== model.layers) throw new Error(`--moe-layer-freq has ${pattern.length} layers`);
    model.moe = { experts: n('--num-experts'), experts_per_token: n('--moe-router-topk'),
      expert_ffn_hidden: n('--moe-ffn-hidden-size'), ...moeLayers(pattern) };
    // Megatron-LM's shared experts are one MLP of their summed width
    if (a['--moe-shared-expert-intermediate-size']) {
      Object.assign(model.moe, { shared_experts: 1, shared_ffn_hidden: n('--moe-shared-expert-intermediate-size') });
    }
  }

  // selective recompute names its modules: core_attn is training.recompute
  // selective, the others its recompute_* fields
  const modules = a['--recompute-granularity'] === 'selective' ? a['--recompute-modules'].split(' ') : [];
  const recompute = a['--recompute-granularity'] === 'full' ? 'full' : modules.includes('core_attn') ? 'selective' : 'none';
  const known = ['core_attn', 'mlp', 'layernorm', 'mla_up_proj', 'moe_act'];
  if (modules.some((m) => !known.includes(m))) throw new Error(`recompute modules ${modules}`);
  const training = {
    framework, seq_len: n('--seq-length'), global_batch: n('--global-batch-size'), micro_batch: n('--micro-batch-size'),
    optimizer: a['--optimizer'], recompute, recompute_mlp: modules.includes('mlp'),
    recompute_norms: modules.includes('layernorm'), recompute_mla_up_proj: modules.includes('mla_up_proj'),
    recompute_moe_act: modules.includes('moe_act'),
    recompute_layers: a['--recompute-method'] === 'block' ? n('--recompute-num-layers') : 0,
    offload_layers: a['--cpu-offloading-num-layers'] ? n('--cpu-offloading-num-layers') : 0,
    flash_attention: a['--use-flash-attn'] === true,
    dataloader_mask: a['--no-create-attention-mask-in-dataloader'] !== true,
    capacity_factor: base.config.training.capacity_factor,
    precision: { weights: a['--bf16'] ? 'bf16' : a['--fp16'] ? 'fp16' : 'fp32',
      fp8: a['--fp8-format'] === 'hybrid' || a['--fp4-format'] === 'e2m1', fp4: a['--fp4-format'] === 'e2m1',
      fp8_params: a['--fp8-param-gather'] === true },
  };
  if (a['--fp8-format'] && a['--fp8-recipe'] !== 'delayed') throw new Error('not the delayed fp8 recipe');
  // Megatron-Core fuses SwiGLU unless told not to
  if (llama) training.fused_swiglu = a['--no-bias-swiglu-fusion'] !== true;

  const tp = n('--tensor-model-parallel-size'), pp = n('--pipeline-model-parallel-size');
  const strategy = { optim_grads: 2, optim_grads_params: 3 }[a['--data-parallel-sharding-strategy']];
  const parallel = {
    tp, pp, cp: n('--context-parallel-size'), sp: tp === 1 || a['--sequence-parallel'] === true,
    tp_overlap: a['--tp-comm-overlap'] === true,
    sharding: 'zero', zero: a['--use-megatron-fsdp'] ? strategy : a['--use-distributed-optimizer'] ? 1 : 0,
  };
  if (model.moe) {
    Object.assign(parallel, { ep: n('--expert-model-parallel-size'), etp: n('--expert-tensor-parallel-size'),
      ep_overlap: a['--overlap-moe-expert-parallel-comm'] === true });
    if (parallel.ep_overlap && a['--delay-wgrad-compute'] !== true) throw new Error('ep overlap without --delay-wgrad-compute');
  }
  const chunks = a['--num-virtual-stages-per-pipeline-rank'] ? n('--num-virtual-stages-per-pipeline-rank')
    : a['--num-layers-per-virtual-pipeline-stage'] ? model.layers / (pp * n('--num-layers-per-virtual-pipeline-stage')) : 1;
  if (chunks > 1) {
    Object.assign(parallel, { schedule: 'interleaved', virtual_stages: chunks,
      pp_overlap: a['--no-overlap-p2p-communication'] !== true });
  }
  if (a['--decoder-first-pipeline-num-layers']) parallel.first_stage_layers = n('--decoder-first-pipeline-num-layers');
  if (a['--decoder-last-pipeline-num-layers']) parallel.last_stage_layers = n('--decoder-last-pipeline-num-layers');

  // what the estimate assumes of Megatron-LM beyond the config's fields:
  // all-to-all expert dispatch, and data-parallel traffic behind compute
  if (model.moe && a['--moe-token-dispatcher-type'] === 'flex') parallel.ep_dispatcher = 'flex';
  else if (model.moe && a['--moe-token-dispatcher-type'] !== 'alltoall') throw new Error('MoE dispatch is neither alltoall nor flex');
  const { perNode, nodes } = a.torchrun;
  const dp = (perNode * nodes) / (tp * pp * parallel.cp);
  if (dp * parallel.cp > 1 && a['--overlap-grad-reduce'] !== true) throw new Error('gradient reduction not overlapped');
  if (dp * parallel.cp > 1 && parallel.zero > 0 && a['--overlap-param-gather'] !== true) throw new Error('gather not overlapped');
  const system = { gpu: base.config.system.gpu.name, gpus: perNode * nodes, gpus_per_node: perNode };
  return { model, system, training, parallel };
}

/** A torchtitan TOML back to a config: the parallelism and training from
 * its sections, the architecture from the model-args comments. */
export function configFromTorchtitan(text, base) {
  const t = parseToml(text);
  const { name, framework } = header(t.comments);
  const m = t['#'].model, p = t.parallelism, tr = t.training;
  const model = {
    name, arch: 'llama', layers: m.n_layers, hidden: m.dim, heads: m.n_heads, ffn_hidden: m.inter_dim,
    vocab: m.vocab_size, tied_embeddings: m.enable_weight_tying, dropout: false, positions: 0,
  };
  if (m.kv_lora_rank !== undefined) {
    model.attention = 'mla';
    model.mla = { q_lora_rank: m.q_lora_rank, kv_lora_rank: m.kv_lora_rank, qk_nope_head_dim: m.qk_nope_head_dim,
      qk_rope_head_dim: m.qk_rope_head_dim, v_head_dim: m.v_head_dim };
  } else {
    Object.assign(model, { attention: 'gqa', kv_heads: m.n_kv_heads });
    if (m.head_dim) model.head_dim = m.head_dim;
  }
  if (m['moe_args.num_experts']) {
    model.moe = { experts: m['moe_args.num_experts'], experts_per_token: m['moe_args.top_k'],
      expert_ffn_hidden: m.moe_inter_dim, first_dense: m.n_dense_layers, every: m.interleave_moe_layer_step ?? 1,
      shared_experts: m['moe_args.num_shared_experts'], shared_ffn_hidden: m['moe_args.num_shared_experts'] ? m.moe_inter_dim : 0 };
  }

  const mode = t.activation_checkpoint.mode;
  const training = {
    framework, seq_len: tr.seq_len, global_batch: tr.global_batch_size,
    micro_batch: p.pipeline_parallel_degree > 1 ? p.pipeline_parallel_microbatch_size : tr.local_batch_size,
    recompute: mode === 'selective' && t.activation_checkpoint.selective_ac_option === 'op' ? 'selective_op' : mode,
    capacity_factor: base.config.training.capacity_factor, eager: t.compile?.enable !== true,
    precision: { weights: { bfloat16: 'bf16', float32: 'fp32' }[tr.mixed_precision_param],
      fp8: (t.model.converters ?? []).includes('quantize.linear.float8'),
      fp8_params: t['quantize.linear.float8']?.enable_fsdp_float8_all_gather === true },
  };

  const replicate = p.data_parallel_replicate_degree, shard = p.data_parallel_shard_degree;
  const parallel = {
    tp: p.tensor_parallel_degree, cp: p.context_parallel_degree, pp: p.pipeline_parallel_degree,
    tp_overlap: p.enable_async_tensor_parallel === true,
  };
  if (shard === 1) Object.assign(parallel, { sharding: 'zero', zero: 0 });
  else if (replicate > 1) Object.assign(parallel, { sharding: 'fsdp_hybrid_shard', shard_group: shard * parallel.cp });
  else parallel.sharding = p.fsdp_reshard_after_forward === 'always' ? 'fsdp_full_shard' : 'fsdp_shard_grad_op';
  if (model.moe) Object.assign(parallel, { ep: p.expert_parallel_degree, etp: p.expert_tensor_parallel_degree });
  const schedule = { '1F1B': '1f1b', Interleaved1F1B: 'interleaved', GPipe: 'gpipe' }[p.pipeline_parallel_schedule];
  if (parallel.pp > 1) parallel.schedule = schedule;
  if (p.module_fqns_per_model_part) {
    const parts = p.module_fqns_per_model_part;
    const chunks = parts.length / parallel.pp;
    const layersOf = (rank) => parts.filter((_, i) => i % parallel.pp === rank)
      .reduce((sum, part) => sum + part.filter((x) => x.startsWith('layers.')).length, 0);
    Object.assign(parallel, { virtual_stages: chunks, first_stage_layers: layersOf(0), last_stage_layers: layersOf(parallel.pp - 1) });
  } else if (schedule === 'interleaved') {
    parallel.virtual_stages = model.layers / (parallel.pp * p.pipeline_parallel_layers_per_stage);
  }
  const gpus = replicate * shard * parallel.tp * parallel.cp * parallel.pp;
  const system = { gpu: base.config.system.gpu.name, gpus, gpus_per_node: base.config.system.gpus_per_node };
  return { model, system, training, parallel };
}

/** A DeepSpeed config back to a config: batch, ZeRO and precision from the
 * JSON, the experts from its comment; the model and tp, pp and cp, which the
 * model code sets, from `base`. */
export function configFromDeepspeed(text, base) {
  const { comments, config: ds } = parseDeepspeed(text);
  const { name, framework } = header(comments);
  const { tp, pp, cp, sp, schedule, virtual_stages: vs } = base.config.parallel;
  const dp = ds.train_batch_size / (ds.train_micro_batch_size_per_gpu * ds.gradient_accumulation_steps);
  const z = ds.zero_optimization;
  const parallel = { tp, pp, cp, sp, schedule, virtual_stages: vs,
    ...(z.mics_shard_size ? { sharding: 'fsdp_hybrid_shard', shard_group: z.mics_shard_size } : { sharding: 'zero', zero: z.stage }) };
  const moe = comments.map((c) => c.match(/deepspeed\.moe\.layer\.MoE\(num_experts=(\d+), ep_size=(\d+), k=(\d+)\)/)).find(Boolean);
  const model = { ...base.config.model, name };
  if (moe) {
    model.moe = { ...model.moe, experts: Number(moe[1]), experts_per_token: Number(moe[3]) };
    Object.assign(parallel, { ep: Number(moe[2]), etp: 1 });
  }
  const training = {
    ...base.config.training, framework, global_batch: ds.train_batch_size, micro_batch: ds.train_micro_batch_size_per_gpu,
    precision: { ...base.config.training.precision, weights: ds.bf16?.enabled ? 'bf16' : ds.fp16?.enabled ? 'fp16' : 'fp32',
      gradients: ds.data_types.grad_accum_dtype },
  };
  const system = { gpu: base.config.system.gpu.name, gpus: dp * tp * pp * cp, gpus_per_node: base.config.system.gpus_per_node };
  return { model, system, training, parallel };
}
