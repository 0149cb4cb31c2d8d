// hfconfig.js: a Hugging Face config.json read into the page's model fields.
// Only what the config states is used: each key is mapped to a field, known
// to change nothing the estimate counts (token ids, norm epsilon, rope base),
// or reported; what the core has no mechanism for (biases in a Llama,
// GeGLU, chunked attention, per-head norms, a vision
// encoder) is mapped to the closest thing it has and named in a note, never
// approximated silently. Mixtral, Qwen-MoE, Llama 4, DeepSeek and gpt-oss
// configs bring their experts (gpt-oss's with their biases and clamp), and
// DeepSeek's its latent attention. Llama 4 and Gemma 3 nest the language
// model under text_config.
//
//   importHfConfig(text) -> {fields: {key: text}, notes: [string]} or
//                           {error: string}
import { NAME_TEXT } from './fields.js';

const HF_FAMILIES = {
  // Llama-style decoders: RMSNorm, SwiGLU, rotary positions
  llama: 'llama', mistral: 'llama', qwen2: 'llama', mixtral: 'llama', qwen2_moe: 'llama', qwen3: 'llama',
  qwen3_moe: 'llama', deepseek_v2: 'llama', deepseek_v3: 'llama', phi3: 'llama', llama4_text: 'llama', gpt_oss: 'llama',
  // GeGLU is SwiGLU's three matrices with another activation (a note says so)
  gemma2: 'llama', gemma3_text: 'llama',
  // GPT-style: LayerNorm, GeLU, biases
  gpt2: 'gpt', gpt_neox: 'gpt',
};

/** Multimodal configs whose language model is their text_config, and the
 * model_type it has when the file leaves it out. */
const NESTED = { llama4: 'llama4_text', gemma3: 'gemma3_text' };

const LLAMA_KEYS = [['layers', 'num_hidden_layers'], ['hidden', 'hidden_size'], ['heads', 'num_attention_heads'],
  ['kvh', 'num_key_value_heads'], ['ffn', 'intermediate_size'], ['vocab', 'vocab_size']];
/** [our field, HF key] per family, or per model type where it differs. */
const KEYS = {
  llama: LLAMA_KEYS,
  // Llama 4: intermediate_size is an expert's width, the dense layers' is intermediate_size_mlp
  llama4_text: LLAMA_KEYS.map(([field, key]) => [field, field === 'ffn' ? 'intermediate_size_mlp' : key]),
  gpt2: [['layers', 'n_layer'], ['hidden', 'n_embd'], ['heads', 'n_head'], ['ffn', 'n_inner'],
    ['vocab', 'vocab_size'], ['pos', 'n_positions']],
  gpt_neox: [['layers', 'num_hidden_layers'], ['hidden', 'hidden_size'], ['heads', 'num_attention_heads'],
    ['ffn', 'intermediate_size'], ['vocab', 'vocab_size'], ['pos', 'max_position_embeddings']],
};

const DEEPSEEK_MOE = [['experts', 'n_routed_experts'], ['topk', 'num_experts_per_tok'], ['effn', 'moe_intermediate_size'],
  ['shexp', 'n_shared_experts'], ['sffn', 'moe_intermediate_size'], ['fdense', 'first_k_dense_replace'],
  ['every', 'moe_layer_freq']];
/** Mixture-of-experts keys per model type, [our field, HF key]; shared
 * experts of Qwen-MoE are one MLP of shared_expert_intermediate_size. */
const MOE_KEYS = {
  mixtral: [['experts', 'num_local_experts'], ['topk', 'num_experts_per_tok'], ['effn', 'intermediate_size']],
  qwen2_moe: [['experts', 'num_experts'], ['topk', 'num_experts_per_tok'], ['effn', 'moe_intermediate_size'],
    ['sffn', 'shared_expert_intermediate_size'], ['every', 'decoder_sparse_step']],
  qwen3_moe: [['experts', 'num_experts'], ['topk', 'num_experts_per_tok'], ['effn', 'moe_intermediate_size'],
    ['every', 'decoder_sparse_step']],
  // one shared expert as wide as a routed one; every interleave_moe_layer_step-th layer is MoE
  llama4_text: [['experts', 'num_local_experts'], ['topk', 'num_experts_per_tok'], ['effn', 'intermediate_size'],
    ['sffn', 'intermediate_size'], ['every', 'interleave_moe_layer_step']],
  deepseek_v2: DEEPSEEK_MOE,
  deepseek_v3: DEEPSEEK_MOE,
  // gpt-oss: every layer MoE, its experts as wide as intermediate_size
  gpt_oss: [['experts', 'num_local_experts'], ['topk', 'num_experts_per_tok'], ['effn', 'intermediate_size']],
};
/** Multi-head latent attention (DeepSeek); a null q_lora_rank is no query latent. */
const MLA_KEYS = [['qlora', 'q_lora_rank'], ['kvlora', 'kv_lora_rank'], ['nope', 'qk_nope_head_dim'],
  ['rope', 'qk_rope_head_dim'], ['vhd', 'v_head_dim']];
/** Fields that may be 0 (a count of things that can be absent). */
const MAY_BE_ZERO = new Set(['fdense', 'qlora', 'shexp', 'sffn']);

/** Keys read below to fill a field or to report what cannot be expressed. */
const CHECKED = new Set(['model_type', 'tie_word_embeddings', 'hidden_act', 'activation_function',
  'attention_bias', 'mlp_bias', 'head_dim', 'num_local_experts', 'num_experts_per_tok', 'sliding_window',
  'use_sliding_window', 'mlp_only_layers', 'num_nextn_predict_layers', 'qkv_bias', 'hidden_activation',
  'text_config', 'vision_config', 'sliding_window_pattern', 'layer_types', 'attention_chunk_size', 'moe_layers',
  '_name_or_path', 'swiglu_limit', 'experts_per_token', 'rope_scaling']);

/** Keys that change nothing trainplan counts (ids, norm epsilon, rope base,
 * initialisation, dropout rates, inference-only settings, metadata). */
const NO_EFFECT = new Set([
  'architectures', 'transformers_version', 'torch_dtype', 'bos_token_id', 'eos_token_id',
  'pad_token_id', 'rms_norm_eps', 'layer_norm_eps', 'layer_norm_epsilon', 'rope_theta',
  'rotary_emb_base', 'initializer_range', 'use_cache', 'max_position_embeddings', 'attention_dropout',
  'hidden_dropout', 'pretraining_tp', 'max_window_layers', 'router_aux_loss_coef',
  'output_router_logits', 'router_jitter_noise', 'rotary_pct', 'use_parallel_residual', 'resid_pdrop',
  'embd_pdrop', 'attn_pdrop', 'summary_type', 'summary_use_proj', 'summary_activation',
  'summary_proj_to_labels', 'summary_first_dropout', 'scale_attn_weights', 'reorder_and_upcast_attn',
  'scale_attn_by_inverse_layer_idx', 'n_ctx', 'task_specific_params', 'classifier_dropout',
  // routing rules and losses: which experts a token picks, not how many or how large
  'norm_topk_prob', 'topk_method', 'n_group', 'topk_group', 'routed_scaling_factor', 'scoring_func',
  'aux_loss_alpha', 'seq_aux', 'ep_size', 'router_aux_loss_coef', 'quantization_config', 'attn_implementation',
  'auto_map', 'moe_layer_freq_offset', 'kv_lora_rank_scale',
  // Gemma: soft-capping and scaling of logits, the local layers' rope base
  'query_pre_attn_scalar', 'final_logit_softcapping', 'attn_logit_softcapping', 'cache_implementation',
  'rope_local_base_freq',
  // Llama 4: which layers skip rotary positions, weightless L2 norms of q and k, attention temperature
  'no_rope_layers', 'no_rope_layer_interval', 'use_qk_norm', 'attn_temperature_tuning', 'floor_scale',
  'attn_scale', 'for_llm_compressor',
  // Phi-3: the context the rope scaling starts from; gpt-oss's, named its own way
  'original_max_position_embeddings', 'initial_context_length',
  // a multimodal file's image token ids and its projector's settings outside the language model
  'boi_token_index', 'eoi_token_index', 'image_token_index', 'mm_tokens_per_image',
]);

/** tie_word_embeddings where a format leaves it out: its config class's default. */
const TIED_BY_DEFAULT = new Set(['gpt2', 'gemma2', 'gemma3_text']);

const isCount = (v) => Number.isInteger(v) && v >= 1 && v <= 1e9;

/** A value as a message names it: 1e400 parses as Infinity, which JSON
 * would print as null. */
function show(value) {
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large to represent';
  return JSON.stringify(value);
}

/** table[key] for the table's own keys only: a file's "toString" or
 * "__proto__" must not reach Object.prototype. */
const own = (table, key) => (typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : undefined);

/** The language model of a multimodal file (its text_config, which
 * inherits the file's tie_word_embeddings), with a note on what is left out;
 * any other file as it is. */
function languageModel(hf, notes) {
  const inner = own(NESTED, hf.model_type);
  if (!inner) return hf;
  const text = hf.text_config;
  if (text === null || typeof text !== 'object' || Array.isArray(text)) return { error: 'text_config: missing' };
  notes.push('text_config read: only the language model is counted' +
    (hf.vision_config ? ' (the vision encoder and its projector are not)' : ''));
  const outer = Object.keys(hf).filter((k) => !CHECKED.has(k) && !NO_EFFECT.has(k));
  if (outer.length > 0) notes.push(`not recognised, ignored: ${outer.join(', ')}`);
  return { tie_word_embeddings: hf.tie_word_embeddings, ...text, model_type: text.model_type ?? inner };
}

/** The name the import gives the model: the file's own _name_or_path when
 * it is one the core takes, else its type and size ("qwen3 36x4096"). */
function modelName(hf, fields) {
  const path = hf._name_or_path;
  if (typeof path === 'string' && NAME_TEXT.test(path)) return path;
  return `${hf.model_type} ${fields.layers}x${fields.hidden}`;
}

/** @returns {{fields: Record<string, string>, notes: string[]} | {error: string}} */
export function importHfConfig(text) {
  let file;
  try {
    file = JSON.parse(text);
  } catch (e) {
    return { error: `not valid JSON: ${e.message}` };
  }
  if (file === null || typeof file !== 'object' || Array.isArray(file)) return { error: 'a config.json is a JSON object' };
  const notes = [];
  const hf = languageModel(file, notes);
  if (hf.error) return hf;
  const type = hf.model_type;
  const family = own(HF_FAMILIES, type);
  if (!family) {
    return { error: `model_type ${show(type ?? null)} is not one trainplan reads ` +
      `(${[...Object.keys(HF_FAMILIES), ...Object.keys(NESTED)].join(', ')})` };
  }
  const keys = own(KEYS, type) ?? KEYS[family === 'llama' ? 'llama' : type];
  const fields = { arch: family };
  const used = new Set();
  for (const [field, key] of keys) {
    used.add(key);
    const value = own(hf, key);
    if (value === undefined || value === null) continue;
    if (!isCount(value)) return { error: `${key}: ${show(value)} is not a positive whole number` };
    fields[field] = String(value);
  }
  for (const field of ['layers', 'hidden', 'heads', 'vocab']) {
    if (!fields[field]) return { error: `${keys.find(([f]) => f === field)[1]}: missing` };
  }
  // defaults the config format itself defines, not guesses
  if (!fields.kvh && family === 'llama') {
    fields.kvh = fields.heads;
    notes.push('num_key_value_heads absent: multi-head attention (the format\'s default)');
  }
  if (!fields.ffn && type === 'gpt2') {
    fields.ffn = String(4 * Number(fields.hidden));
    notes.push('n_inner null: 4 × n_embd (GPT-2\'s default)');
  }
  if (family === 'gpt') fields.kvh = fields.heads;
  if (!fields.ffn) return { error: `${keys.find(([f]) => f === 'ffn')[1]}: missing` };

  // experts and latent attention, or explicitly none, so a MoE or MLA preset
  // under the import does not keep its own
  fields.experts = '0';
  fields.attn = 'gqa';
  const moeKeys = own(MOE_KEYS, type) || [];
  // what a format leaves out it does not have: no dense layers first, no
  // shared experts, every layer MoE
  if (moeKeys.length > 0) Object.assign(fields, { fdense: '0', every: '1', shexp: '0', sffn: '0' });
  for (const [field, key] of [...moeKeys, ...(type.startsWith('deepseek') ? MLA_KEYS : [])]) {
    used.add(key);
    const value = own(hf, key) ?? (MAY_BE_ZERO.has(field) || (field === 'every' && type === 'llama4_text') ? defaultOf(field) : undefined);
    if (value === undefined) return { error: `${key}: missing` };
    if (!(isCount(value) || (value === 0 && MAY_BE_ZERO.has(field)))) {
      return { error: `${key}: ${show(value)} is not a positive whole number` };
    }
    fields[field] = String(value);
  }
  if (moeKeys.length > 0) Object.assign(fields, expertExtras(hf, type, notes));
  if (type === 'qwen2_moe' && fields.sffn !== '0') fields.shexp = '1';
  if (type === 'llama4_text') fields.shexp = '1';
  if (type.startsWith('deepseek')) {
    fields.attn = 'mla';
    fields.kvh = fields.heads; // MLA: a key and value per head
  }
  notes.push(...layerNotes(hf, type, fields));
  const tied = hf.tie_word_embeddings ?? (TIED_BY_DEFAULT.has(type) ? true : undefined);
  if (typeof tied === 'boolean') fields.tied = String(tied);
  else fields.tied = family === 'llama' ? 'false' : 'true';

  // what our two architectures cannot express, said out loud
  const act = hf.hidden_activation ?? hf.hidden_act ?? hf.activation_function;
  if (family === 'llama' && act !== undefined && act !== 'silu') {
    notes.push(`hidden_act ${act}: counted as SwiGLU (silu), the same three matrices and FLOPs with another activation`);
  }
  if (family === 'llama' && (hf.attention_bias === true || type === 'qwen2' || (type === 'qwen2_moe' && hf.qkv_bias !== false))) {
    notes.push('attention biases (q, k, v): not counted (llama architecture has none; under 0.01% of the weights)');
  }
  if (family === 'llama' && hf.mlp_bias === true) notes.push('mlp_bias: MLP biases not counted (llama architecture has none)');
  // a head size of its own (Qwen3, Gemma), or the usual hidden / heads
  fields.hd = '0';
  if (hf.head_dim !== undefined && hf.head_dim !== null && fields.attn !== 'mla') {
    if (!isCount(hf.head_dim)) return { error: `head_dim: ${show(hf.head_dim)} is not a positive whole number` };
    if (hf.head_dim * Number(fields.heads) !== Number(fields.hidden)) fields.hd = String(hf.head_dim);
  }
  fields.yarn = yarnRope(hf, fields) ? 'true' : 'false';
  notes.push(...attentionNotes(hf, type));
  Object.assign(fields, slidingWindow(hf, type, notes));
  fields.mname = modelName(file, fields);
  const unknown = Object.keys(hf).filter((k) => !used.has(k) && !CHECKED.has(k) && !NO_EFFECT.has(k));
  if (unknown.length > 0) notes.push(`not recognised, ignored: ${unknown.join(', ')}`);
  return { fields, notes };
}

/** gpt-oss's expert biases (its experts always carry them) and the clamp
 * of its GLU (swiglu_limit), or explicitly none, so that a gpt-oss preset
 * under another MoE import does not keep them (a dense import has no
 * experts to keep them on). */
function expertExtras(hf, type, notes) {
  if (type !== 'gpt_oss') return { ebias: 'false', clamp: 'false' };
  const limit = hf.swiglu_limit;
  if (limit !== undefined && limit !== null && !(typeof limit === 'number' && limit > 0 && Number.isFinite(limit))) {
    notes.push(`swiglu_limit ${show(limit)}: not a positive number, counted as no clamp`);
    return { ebias: 'true', clamp: 'false' };
  }
  return { ebias: 'true', clamp: limit ? 'true' : 'false' };
}

/** Whether the rotary embedding is YaRN's (rope_scaling's rope_type, or
 * type in older files). Latent attention applies its rotary part its own
 * way (DeepSeek's), which model.yarn_rope does not describe. */
function yarnRope(hf, fields) {
  const scaling = hf.rope_scaling;
  if (scaling === null || typeof scaling !== 'object' || fields.attn === 'mla') return false;
  return (scaling.rope_type ?? scaling.type) === 'yarn';
}

/** A MoE field's value where the format leaves it out. */
const defaultOf = (field) => (field === 'every' ? 1 : 0);

/** What the core counts differently in the layers' MLPs and experts. */
function layerNotes(hf, type, fields) {
  const notes = [];
  if (Array.isArray(hf.mlp_only_layers) && hf.mlp_only_layers.length > 0) {
    notes.push(`mlp_only_layers ${JSON.stringify(hf.mlp_only_layers)}: these dense layers are counted as MoE layers`);
  }
  if (type.startsWith('deepseek') && hf.moe_layer_freq > 1) {
    notes.push(`moe_layer_freq ${hf.moe_layer_freq}: counted as every ${hf.moe_layer_freq}-th layer after the dense ones`);
  }
  if (type === 'llama4_text' && Array.isArray(hf.moe_layers)) {
    // the core puts MoE layers at every n-th: layers n-1, 2n-1, ... as Llama 4's default does
    const every = Number(fields.every);
    const pattern = Array.from({ length: Math.floor(Number(fields.layers) / every) }, (_, i) => (i + 1) * every - 1);
    if (JSON.stringify(hf.moe_layers) !== JSON.stringify(pattern)) {
      notes.push(`moe_layers ${JSON.stringify(hf.moe_layers).slice(0, 60)}: counted as the last layer of every ${every}`);
    }
  }
  if (hf.num_nextn_predict_layers > 0) {
    notes.push(`num_nextn_predict_layers ${hf.num_nextn_predict_layers}: the multi-token-prediction module is not counted`);
  }
  if (type === 'qwen2_moe' && fields.shexp === '1') notes.push('the shared expert\'s gate (1 × hidden_size) is not counted');
  if (type === 'llama4_text' && hf.interleave_moe_layer_step === undefined) {
    notes.push('interleave_moe_layer_step absent: every layer MoE (the format\'s default)');
  }
  return notes;
}

/** The attention window (model.window_tokens) and which layers attend
 * globally (model.global_every): every layer of Mistral and Phi-3, all but
 * every other of Gemma 2, all but every sliding_window_pattern-th of
 * Gemma 3, or as a file's layer_types lists them; a list whose global
 * layers do not fall every n-th is counted at their share and said so.
 * Qwen2's files carry a sliding_window they do not use
 * (use_sliding_window false). */
function slidingWindow(hf, type, notes) {
  const none = { win: '0', gevery: '0' };
  if (!hf.sliding_window || hf.use_sliding_window === false || type === 'qwen2') return none;
  if (!isCount(hf.sliding_window)) {
    notes.push(`sliding_window ${show(hf.sliding_window)}: not a positive whole number, ignored`);
    return none;
  }
  const win = String(hf.sliding_window);
  if (Array.isArray(hf.layer_types)) {
    const kinds = hf.layer_types;
    const isGlobal = (kind) => kind !== 'sliding_attention';
    const global = kinds.filter(isGlobal).length;
    if (global === 0) return { win, gevery: '0' };
    // the first global layer gives the period; the rest must keep it
    const period = kinds.findIndex(isGlobal) + 1;
    if (kinds.every((kind, i) => isGlobal(kind) === ((i + 1) % period === 0))) {
      return { win, gevery: String(period) };
    }
    const every = Math.round(kinds.length / global);
    notes.push(`layer_types: ${global} of ${kinds.length} layers attend globally, counted as every ${every}th`);
    return { win, gevery: String(every) };
  }
  if (type === 'gemma2') return { win, gevery: '2' };
  if (type === 'gemma3_text') return { win, gevery: String(hf.sliding_window_pattern ?? 6) };
  return { win, gevery: '0' };
}

/** Attention the core counts over the whole causal context, and norms it
 * does not count. */
function attentionNotes(hf, type) {
  const notes = [];
  if (type === 'qwen3' || type === 'qwen3_moe' || type === 'gemma3_text') {
    notes.push('the per-head RMSNorms of Q and K (2 × head_dim a layer) are not counted');
  }
  if (type.startsWith('gemma')) {
    notes.push('the norms after attention and after the MLP (2 × hidden_size a layer) are not counted');
  }
  if (type === 'gpt_oss') notes.push('the attention sinks (one learned logit per head a layer) are not counted');
  if (type === 'gpt_neox') notes.push('rotary positions counted as a learned position table of max_position_embeddings rows (gpt architecture)');
  if (type === 'llama4_text' && hf.attention_chunk_size) {
    notes.push(`attention_chunk_size ${hf.attention_chunk_size} (three layers of four attend within chunks): ` +
      'attention is counted over the whole causal context');
  }
  return notes;
}
