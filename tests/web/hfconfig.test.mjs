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
    vocab: '128256', tied: 'false' });
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
    vocab: '50257', pos: '1024', tied: 'true' });
  assert.deepEqual(notes, ['n_inner null: 4 × n_embd (GPT-2\'s default)']);
  const out = cliEstimate(toConfig(withModel({ ...defaultInputs(), seq: '1024', gbs: '8' }, fields)));
  assert.equal(out.params.total, 124439808); // GPT-2 small, tied: 124.4 M
});

test('what the architectures cannot express is reported, not hidden', () => {
  const mixtral = { model_type: 'mixtral', num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32,
    num_key_value_heads: 8, intermediate_size: 14336, vocab_size: 32000, num_local_experts: 8,
    num_experts_per_tok: 2, sliding_window: null, hidden_act: 'silu', some_new_knob: 3 };
  const { fields, notes } = importHfConfig(JSON.stringify(mixtral));
  assert.equal(fields.ffn, '14336');
  assert.match(notes.join('\n'), /num_local_experts 8, num_experts_per_tok 2: mixture of experts is not modelled/);
  assert.match(notes.join('\n'), /not recognised, ignored: some_new_knob/);
  const qwen = { model_type: 'qwen2', num_hidden_layers: 28, hidden_size: 3584, num_attention_heads: 28,
    num_key_value_heads: 4, intermediate_size: 18944, vocab_size: 152064, hidden_act: 'gelu', mlp_bias: true };
  assert.match(importHfConfig(JSON.stringify(qwen)).notes.join('\n'), /hidden_act gelu[^]*attention biases[^]*mlp_bias/);
});

test('bad files are refused with the key and the reason', () => {
  assert.match(importHfConfig('{"model_type":').error, /^not valid JSON/);
  assert.match(importHfConfig('[1]').error, /JSON object/);
  assert.match(importHfConfig('{"model_type":"t5"}').error, /model_type "t5" is not one trainplan reads/);
  assert.match(importHfConfig('{"model_type":"llama","num_hidden_layers":32}').error, /hidden_size: missing/);
  assert.match(importHfConfig('{"model_type":"llama","num_hidden_layers":-3}').error, /num_hidden_layers: -3 is not/);
  assert.match(importHfConfig('{"model_type":"llama","num_hidden_layers":"<b>"}').error, /num_hidden_layers: "<b>" is not/);
});
