// importHfConfig (web/src/hfconfig.js) on the config.json files of the
// families the page reads: what maps, what is reported, what is refused. The
// architecture sizes are those the model cards publish; the core then counts
// the same parameters as its own preset (checked against the CLI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cliEstimate } from '../helpers.mjs';
import { importHfConfig } from '../../web/src/hfconfig.js';
import { defaultInputs, toConfig, withModel } from '../../web/src/fields.js';

const LLAMA_8B = readFileSync(join(ROOT, 'tests', 'web', 'fixtures', 'llama-3.1-8b.config.json'), 'utf8');

test('Llama 3.1 8B maps every size, with nothing to report, and counts the preset\'s parameters', () => {
  const { fields, notes } = importHfConfig(LLAMA_8B);
  assert.deepEqual(fields, { arch: 'llama', layers: '32', hidden: '4096', heads: '32', kvh: '8', ffn: '14336',
    vocab: '128256', tied: 'false', experts: '0', attn: 'gqa', hd: '0', win: '0', gevery: '0', yarn: 'false',
    mname: 'llama 32x4096' });
  assert.deepEqual(notes, []);
  const imported = cliEstimate(toConfig(withModel({ ...defaultInputs(), model: 'llama-3.1-70b' }, fields)));
  const preset = cliEstimate(toConfig({ ...defaultInputs(), model: 'llama-3.1-8b' }));
  assert.equal(imported.params.total, preset.params.total);
  assert.equal(imported.params.total, 8030261248); // Meta's 8.03 B
});

test('GPT-2 takes its format\'s defaults and learned positions', () => {
  const gpt2 = { model_type: 'gpt2', n_layer: 12, n_embd: 768, n_head: 12, n_inner: null, vocab_size: 50257,
    n_positions: 1024, activation_function: 'gelu_new', n_ctx: 1024, layer_norm_epsilon: 1e-5 };
  const { fields, notes } = importHfConfig(JSON.stringify(gpt2));
  assert.deepEqual(fields, { arch: 'gpt', layers: '12', hidden: '768', heads: '12', kvh: '12', ffn: '3072',
    vocab: '50257', pos: '1024', tied: 'true', experts: '0', attn: 'gqa', hd: '0', win: '0', gevery: '0', yarn: 'false',
    mname: 'gpt2 12x768' });
  assert.deepEqual(notes, ['n_inner null: 4 × n_embd (GPT-2\'s default)']);
  const out = cliEstimate(toConfig(withModel({ ...defaultInputs(), seq: '1024', gbs: '8' }, fields)));
  assert.equal(out.params.total, 124439808); // GPT-2 small, tied: 124.4 M
});

test('what the architectures cannot express is reported, not hidden', () => {
  const mistral = { model_type: 'mistral', num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32,
    num_key_value_heads: 8, intermediate_size: 14336, vocab_size: 32000, sliding_window: 4096, hidden_act: 'silu',
    some_new_knob: 3 };
  const { notes, fields } = importHfConfig(JSON.stringify(mistral));
  assert.equal(fields.win, '4096');
  assert.equal(fields.gevery, '0');
  assert.match(notes.join('\n'), /not recognised, ignored: some_new_knob/);
  const qwen = { model_type: 'qwen2', num_hidden_layers: 28, hidden_size: 3584, num_attention_heads: 28,
    num_key_value_heads: 4, intermediate_size: 18944, vocab_size: 152064, hidden_act: 'gelu', mlp_bias: true };
  assert.match(importHfConfig(JSON.stringify(qwen)).notes.join('\n'), /hidden_act gelu[^]*attention biases[^]*mlp_bias/);
});

// Mixture-of-experts configs as their Hugging Face repositories publish them
// (sizes only; ids and rope settings left out): each counts what the preset
// of the same name counts, imported over a preset of the other kind.
const MOE_CONFIGS = [
  ['mixtral-8x7b', 'llama-3.1-8b', { model_type: 'mixtral', num_hidden_layers: 32, hidden_size: 4096,
    num_attention_heads: 32, num_key_value_heads: 8, intermediate_size: 14336, vocab_size: 32000,
    num_local_experts: 8, num_experts_per_tok: 2, sliding_window: null, hidden_act: 'silu', tie_word_embeddings: false }],
  ['qwen2-57b-a14b', 'deepseek-v3', { model_type: 'qwen2_moe', num_hidden_layers: 28, hidden_size: 3584,
    num_attention_heads: 28, num_key_value_heads: 4, intermediate_size: 18944, vocab_size: 151936,
    num_experts: 64, num_experts_per_tok: 8, moe_intermediate_size: 2560, shared_expert_intermediate_size: 20480,
    decoder_sparse_step: 1, mlp_only_layers: [], norm_topk_prob: false, tie_word_embeddings: false }],
  ['deepseek-v3', 'mixtral-8x7b', { model_type: 'deepseek_v3', num_hidden_layers: 61, hidden_size: 7168,
    num_attention_heads: 128, num_key_value_heads: 128, intermediate_size: 18432, vocab_size: 129280,
    n_routed_experts: 256, n_shared_experts: 1, num_experts_per_tok: 8, moe_intermediate_size: 2048,
    first_k_dense_replace: 3, moe_layer_freq: 1, q_lora_rank: 1536, kv_lora_rank: 512, qk_nope_head_dim: 128,
    qk_rope_head_dim: 64, v_head_dim: 128, num_nextn_predict_layers: 1, topk_method: 'noaux_tc', n_group: 8,
    topk_group: 4, routed_scaling_factor: 2.5, scoring_func: 'sigmoid', norm_topk_prob: true, tie_word_embeddings: false }],
  ['qwen3-235b-a22b', 'llama-3.1-70b', { model_type: 'qwen3_moe', num_hidden_layers: 94, hidden_size: 4096,
    num_attention_heads: 64, num_key_value_heads: 4, head_dim: 128, intermediate_size: 12288, vocab_size: 151936,
    num_experts: 128, num_experts_per_tok: 8, moe_intermediate_size: 1536, decoder_sparse_step: 1, mlp_only_layers: [],
    norm_topk_prob: true, tie_word_embeddings: false }],
  ['deepseek-v2-lite', 'qwen3-30b-a3b', { model_type: 'deepseek_v2', num_hidden_layers: 27, hidden_size: 2048,
    num_attention_heads: 16, num_key_value_heads: 16, intermediate_size: 10944, vocab_size: 102400,
    n_routed_experts: 64, n_shared_experts: 2, num_experts_per_tok: 6, moe_intermediate_size: 1408,
    first_k_dense_replace: 1, moe_layer_freq: 1, q_lora_rank: null, kv_lora_rank: 512, qk_nope_head_dim: 128,
    qk_rope_head_dim: 64, v_head_dim: 128, tie_word_embeddings: false }],
];

test('Mixtral, Qwen-MoE and DeepSeek configs bring their experts and latent attention', () => {
  for (const [preset, under, hf] of MOE_CONFIGS) {
    const { fields, notes, error } = importHfConfig(JSON.stringify(hf));
    assert.equal(error, undefined, preset);
    assert.doesNotMatch(notes.join('\n'), /not recognised/, preset);
    const small = { seq: '4096', gbs: '64', gpus: '64' };
    const imported = cliEstimate(toConfig(withModel({ ...defaultInputs(), ...small, model: under }, fields)));
    const same = cliEstimate(toConfig({ ...defaultInputs(), ...small, model: preset }));
    assert.equal(imported.params.total, same.params.total, preset);
    assert.equal(imported.params.active, same.params.active, preset);
    assert.equal(imported.config.model.attention, same.config.model.attention, preset);
  }
  const deepseek = importHfConfig(JSON.stringify(MOE_CONFIGS[2][2]));
  assert.match(deepseek.notes.join('\n'), /multi-token-prediction module is not counted/);
  assert.equal(deepseek.fields.attn, 'mla');
  // a dense config imported over a MoE preset is dense
  const dense = cliEstimate(toConfig(withModel({ ...defaultInputs(), model: 'mixtral-8x7b' }, importHfConfig(LLAMA_8B).fields)));
  assert.equal(dense.params.total, 8030261248);
  assert.equal(dense.config.model.moe, undefined);
});

// openai/gpt-oss-120b's config.json (Hugging Face), its quantization and
// token ids left out: every other layer attends over a 128-token window,
// and the experts carry biases and clamp their GLU (swiglu_limit)
const GPT_OSS_120B = { architectures: ['GptOssForCausalLM'], model_type: 'gpt_oss', num_hidden_layers: 36,
  hidden_size: 2880, num_attention_heads: 64, num_key_value_heads: 8, head_dim: 64, intermediate_size: 2880,
  vocab_size: 201088, num_local_experts: 128, num_experts_per_tok: 4, experts_per_token: 4, sliding_window: 128,
  layer_types: Array.from({ length: 36 }, (_, i) => (i % 2 === 0 ? 'sliding_attention' : 'full_attention')),
  swiglu_limit: 7.0, attention_bias: true, attention_dropout: 0.0, hidden_act: 'silu', initial_context_length: 4096,
  max_position_embeddings: 131072, rms_norm_eps: 1e-5, rope_theta: 150000, router_aux_loss_coef: 0.9,
  output_router_logits: false, tie_word_embeddings: false, use_cache: true,
  rope_scaling: { beta_fast: 32.0, beta_slow: 1.0, factor: 32.0, original_max_position_embeddings: 4096,
    rope_type: 'yarn', truncate: false } };

test('gpt-oss brings its window, biases, clamp and YaRN: the estimate is its preset\'s', () => {
  const { fields, notes, error } = importHfConfig(JSON.stringify(GPT_OSS_120B));
  assert.equal(error, undefined);
  assert.doesNotMatch(notes.join('\n'), /not recognised/);
  assert.match(notes.join('\n'), /attention sinks/);
  assert.match(notes.join('\n'), /attention biases/);
  assert.deepEqual([fields.ebias, fields.clamp, fields.win, fields.gevery, fields.hd, fields.yarn],
    ['true', 'true', '128', '2', '64', 'true']);
  const small = { seq: '4096', gbs: '64', gpus: '64', ep: '8' };
  const imported = cliEstimate(toConfig(withModel({ ...defaultInputs(), ...small, model: 'qwen3-30b-a3b' }, fields)));
  const same = cliEstimate(toConfig({ ...defaultInputs(), ...small, model: 'gpt-oss-120b' }));
  assert.equal(imported.params.total, same.params.total);
  assert.equal(imported.time.step_s, same.time.step_s);
  assert.equal(imported.memory.peak_bytes, same.memory.peak_bytes);
  // without the limit, no clamp; another MoE imported over gpt-oss drops both
  const unclamped = importHfConfig(JSON.stringify({ ...GPT_OSS_120B, swiglu_limit: undefined }));
  assert.equal(unclamped.fields.clamp, 'false');
  assert.match(importHfConfig(JSON.stringify({ ...GPT_OSS_120B, swiglu_limit: 'seven' })).notes.join('\n'),
    /swiglu_limit "seven": not a positive number/);
  const qwen = importHfConfig(JSON.stringify(MOE_CONFIGS.find(([preset]) => preset === 'qwen3-235b-a22b')[2])).fields;
  const over = cliEstimate(toConfig(withModel({ ...defaultInputs(), ...small, model: 'gpt-oss-120b' }, qwen)));
  assert.equal(over.config.model.moe.expert_bias, undefined);
  assert.equal(over.config.model.moe.glu_clamp, undefined);
  assert.equal(over.config.model.yarn_rope, undefined);
});

test('bad files are refused with the key and the reason', () => {
  assert.match(importHfConfig('{"model_type":').error, /^not valid JSON/);
  assert.match(importHfConfig('[1]').error, /JSON object/);
  assert.match(importHfConfig('{"model_type":"t5"}').error, /model_type "t5" is not one trainplan reads/);
  assert.match(importHfConfig('{"model_type":"llama","num_hidden_layers":32}').error, /hidden_size: missing/);
  assert.match(importHfConfig('{"model_type":"llama","num_hidden_layers":-3}').error, /num_hidden_layers: -3 is not/);
  assert.match(importHfConfig('{"model_type":"llama","num_hidden_layers":"<b>"}').error, /num_hidden_layers: "<b>" is not/);
});

test('a file\'s keys and numbers never reach Object.prototype or pass as missing', () => {
  // model_type names of Object.prototype's members are no family
  for (const type of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
    const result = importHfConfig(`{"model_type":"${type}","num_hidden_layers":2}`);
    assert.match(result.error, new RegExp(`model_type "${type}" is not one trainplan reads`));
  }
  assert.match(importHfConfig('{"model_type":{"a":1}}').error, /model_type \{"a":1\} is not one/);
  // a number past the doubles' range is named as such, not as missing or null
  const deepseek = { model_type: 'deepseek_v3', num_hidden_layers: 61, hidden_size: 7168, num_attention_heads: 128,
    intermediate_size: 18432, vocab_size: 129280, num_experts_per_tok: 8, moe_intermediate_size: 2048,
    q_lora_rank: 1536, kv_lora_rank: 512, qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128 };
  const huge = JSON.stringify(deepseek).replace('{', '{"n_routed_experts":1e400,');
  assert.match(importHfConfig(huge).error, /n_routed_experts: a number too large to represent is not/);
  // a key the file gives as an inherited name is not read from the prototype
  assert.match(importHfConfig('{"model_type":"llama","num_hidden_layers":2,"hidden_size":64,' +
    '"num_attention_heads":4,"vocab_size":10,"__proto__":{"intermediate_size":256}}').error, /intermediate_size: missing/);
});

// The architectures people train now, each from its Hugging Face repository's
// config.json (tests/web/fixtures/NAME.config.json; the repository is its
// _name_or_path), imported over a preset of another kind: the parameters
// the core counts must be the published total to within `within`.
// Published totals: Qwen3 model cards (Qwen/Qwen3-8B: 8.2B; Qwen/Qwen3-30B-A3B:
// 30.5B, 3.3B active); Gemma 2 report (Gemma Team, arXiv 2408.00118): 9B
// model, 9.24B; Gemma 3 report (Gemma Team, arXiv 2503.19786), Table 1,
// embedding + non-embedding: 1B 302M + 698M, 27B 1,416M + 25,600M (the 417M
// vision encoder is not the language model); Llama 4 model card
// (meta-llama/Llama-4-Scout-17B-16E: 109B total, 17B active; Maverick: 400B);
// DeepSeek-V2 report (arXiv 2405.04434): 236B, 21B active; DeepSeek-V3 report
// (arXiv 2412.19437): 671B without the 14B multi-token-prediction module,
// 37B active; Mixtral (Jiang et al., arXiv 2401.04088; Mistral AI's model
// card: 46.7B, 12.9B active); Phi-3 report (Abdin et al., arXiv 2404.14219):
// phi-3-mini, 3.8B.
const PUBLISHED = [
  // [fixture, preset imported over, published total, within, published active]
  ['qwen3-8b', 'mixtral-8x7b', 8.2e9, 0.01],
  ['qwen3-30b-a3b', 'llama-3.1-70b', 30.5e9, 0.01, 3.3e9],
  ['gemma-2-9b', 'deepseek-v3', 9.24e9, 0.01],
  ['gemma-3-1b', 'llama-3.1-8b', 1.0e9, 0.01],
  ['gemma-3-27b', 'llama-3.1-8b', 27.016e9, 0.01],
  // Meta's 109B counts the vision encoder (about 0.8B) that the import leaves out, as its note says
  ['llama-4-scout-17b-16e', 'llama-3.1-8b', 109e9, 0.015, 17e9],
  ['llama-4-maverick-17b-128e', 'deepseek-v3', 400e9, 0.01, 17e9],
  ['deepseek-v2', 'llama-3.1-8b', 236e9, 0.01, 21e9],
  ['deepseek-v3', 'qwen3-30b-a3b', 671e9, 0.01, 37e9],
  ['mixtral-8x7b', 'deepseek-v3', 46.7e9, 0.01, 12.9e9],
  ['phi-3-mini-4k', 'qwen2-57b-a14b', 3.8e9, 0.01],
];

const fixture = (name) => readFileSync(join(ROOT, 'tests', 'web', 'fixtures', `${name}.config.json`), 'utf8');

test('Qwen3, Gemma 2 and 3, Llama 4, DeepSeek, Mixtral and Phi-3 count their published parameters', () => {
  for (const [name, under, total, within, active] of PUBLISHED) {
    const { fields, notes, error } = importHfConfig(fixture(name));
    assert.equal(error, undefined, name);
    assert.doesNotMatch(notes.join('\n'), /not recognised/, name);
    assert.equal(fields.mname, JSON.parse(fixture(name))._name_or_path, name);
    const out = cliEstimate(toConfig(withModel({ ...defaultInputs(), seq: '4096', gbs: '64', gpus: '64', model: under },
      fields)));
    const error_ = out.params.total / total - 1;
    assert.ok(Math.abs(error_) <= within, `${name}: ${out.params.total} against ${total} (${(100 * error_).toFixed(2)}%)`);
    if (active) assert.ok(Math.abs(out.params.active / active - 1) <= 0.02, `${name} active: ${out.params.active}`);
    assert.equal(out.config.model.name, fields.mname, name);
  }
});

test('what the core approximates in the new architectures is named in a note', () => {
  const notes = (name) => importHfConfig(fixture(name)).notes.join('\n');
  assert.match(notes('gemma-2-9b'), /hidden_act gelu_pytorch_tanh: counted as SwiGLU/);
  // sliding windows: Gemma 2 on every other layer, Gemma 3 on 5 of every 6
  const window = (text) => { const { fields } = importHfConfig(text); return [fields.win, fields.gevery]; };
  assert.deepEqual(window(fixture('gemma-2-9b')), ['4096', '2']);
  assert.deepEqual(window(fixture('gemma-3-1b')), ['512', '6']);
  // newer files list each layer's kind
  const listed = { ...JSON.parse(fixture('gemma-3-1b')), sliding_window_pattern: undefined,
    layer_types: [...Array(26).keys()].map((i) => ((i + 1) % 6 === 0 ? 'full_attention' : 'sliding_attention')) };
  assert.deepEqual(window(JSON.stringify(listed)), ['512', '6']);
  assert.doesNotMatch(importHfConfig(JSON.stringify(listed)).notes.join('\n'), /layer_types/);
  // global layers off the every-n-th pattern are counted at their share, and said so
  const irregular = { ...listed, layer_types: [...Array(26).keys()].map((i) => (i < 4 ? 'full_attention' : 'sliding_attention')) };
  assert.deepEqual(window(JSON.stringify(irregular)), ['512', '7']);
  assert.match(importHfConfig(JSON.stringify(irregular)).notes.join('\n'), /layer_types: 4 of 26 layers attend globally, counted as every 7th/);
  // Qwen2 files carry a window they do not use
  assert.deepEqual(window(JSON.stringify({ model_type: 'qwen2', num_hidden_layers: 28, hidden_size: 3584,
    num_attention_heads: 28, num_key_value_heads: 4, intermediate_size: 18944, vocab_size: 152064,
    sliding_window: 131072, use_sliding_window: false })), ['0', '0']);
  assert.match(notes('gemma-3-27b'), /text_config read: only the language model is counted \(the vision encoder/);
  assert.match(notes('llama-4-scout-17b-16e'), /attention_chunk_size 8192 .*whole causal context/);
  assert.match(notes('qwen3-8b'), /per-head RMSNorms of Q and K/);
  assert.deepEqual([importHfConfig(fixture('phi-3-mini-4k')).fields.win, importHfConfig(fixture('phi-3-mini-4k')).fields.gevery], ['2047', '0']);
  // Llama 4: the dense layers' width is intermediate_size_mlp, an expert's intermediate_size, one shared expert
  const maverick = importHfConfig(fixture('llama-4-maverick-17b-128e')).fields;
  assert.deepEqual([maverick.ffn, maverick.effn, maverick.shexp, maverick.sffn, maverick.every], ['16384', '8192', '1', '8192', '2']);
  // moe_layers other than every n-th are counted as every n-th, and said
  const hf = JSON.parse(fixture('llama-4-maverick-17b-128e'));
  hf.text_config.moe_layers = [0, 2, 4];
  assert.match(importHfConfig(JSON.stringify(hf)).notes.join('\n'), /moe_layers \[0,2,4\]: counted as the last layer of every 2/);
  // Gemma ties its embeddings when the file does not say
  assert.equal(importHfConfig(fixture('gemma-2-9b')).fields.tied, 'true');
  // a multimodal file without its language model is refused
  assert.match(importHfConfig('{"model_type":"llama4","vision_config":{}}').error, /^text_config: missing/);
});
