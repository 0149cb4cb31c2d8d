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
    vocab: '128256', tied: 'false', experts: '0', attn: 'gqa', hd: '0' });
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
    vocab: '50257', pos: '1024', tied: 'true', experts: '0', attn: 'gqa', hd: '0' });
  assert.deepEqual(notes, ['n_inner null: 4 × n_embd (GPT-2\'s default)']);
  const out = cliEstimate(toConfig(withModel({ ...defaultInputs(), seq: '1024', gbs: '8' }, fields)));
  assert.equal(out.params.total, 124439808); // GPT-2 small, tied: 124.4 M
});

test('what the architectures cannot express is reported, not hidden', () => {
  const mistral = { model_type: 'mistral', num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32,
    num_key_value_heads: 8, intermediate_size: 14336, vocab_size: 32000, sliding_window: 4096, hidden_act: 'silu',
    some_new_knob: 3 };
  const { notes } = importHfConfig(JSON.stringify(mistral));
  assert.match(notes.join('\n'), /sliding_window 4096: attention is counted over the whole causal context/);
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
