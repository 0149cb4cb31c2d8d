// The store's link and import flows (web/src/state.js): a link's preset
// names are checked once the core lists its presets, a preset picked over
// an imported model replaces it, and a core error about a number the page
// reads as out of range is worded as the page words it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initialState, reducer } from '../../web/src/state.js';
import { encodeHash } from '../../web/src/url.js';
import { defaultInputs } from '../../web/src/fields.js';
import { importHfConfig } from '../../web/src/hfconfig.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.mjs';

const PRESETS = { models: [{ name: 'llama-3.1-8b' }, { name: 'llama-3.1-70b' }, { name: 'mistral-7b' }],
  gpus: [{ name: 'h100-80gb' }], clusters: [{ name: 'dgx-h100' }] };

test('a preset name the core does not list is named once the presets are in, and the rest of the link kept', () => {
  let state = initialState('#v=1&model=llama-3.1-7&gpus=64&pin=1&pin.gpu=h100-8');
  assert.deepEqual(state.linkProblems, []);
  state = reducer(state, { type: 'presets', presets: PRESETS, version: 'test' });
  assert.deepEqual(state.linkProblems, [
    'link value for model ignored: "llama-3.1-7" is not a model trainplan knows (the link may be cut); showing llama-3.1-8b',
    'link value for pin.gpu ignored: "h100-8" is not a gpu trainplan knows (the link may be cut); showing h100-80gb',
  ]);
  assert.deepEqual([state.inputs.model, state.inputs.gpus, state.pinned.gpu], ['llama-3.1-8b', '64', 'h100-80gb']);
  // a link opened later (hashchange) is checked at once
  state = reducer(state, { type: 'loadHash', hash: '#v=2&model=mixtral-8x&n=2' });
  assert.match(state.linkProblems.join('\n'), /"mixtral-8x" is not a model trainplan knows/);
  assert.equal(state.inputs.model, 'llama-3.1-8b');
});

test('an import names the model; a preset picked over it replaces its sizes', () => {
  const { fields } = importHfConfig(readFileSync(join(ROOT, 'tests', 'web', 'fixtures', 'qwen3-8b.config.json'), 'utf8'));
  let state = reducer(initialState(''), { type: 'importModel', fields });
  assert.deepEqual([state.inputs.mname, state.inputs.layers, state.inputs.model], ['Qwen/Qwen3-8B', '36', 'llama-3.1-8b']);
  assert.match(encodeHash(state.inputs), /&mname=Qwen%2FQwen3-8B&/);
  // the same preset as the one under the import is a choice of that preset too
  state = reducer(state, { type: 'setField', key: 'model', value: 'llama-3.1-8b' });
  assert.deepEqual([state.inputs.mname, state.inputs.layers, state.inputs.hd], ['', '', '']);
  // with no import, a preset picked keeps the sizes typed over the last one
  state = reducer(reducer(state, { type: 'setField', key: 'layers', value: '40' }),
    { type: 'setField', key: 'model', value: 'mistral-7b' });
  assert.equal(state.inputs.layers, '40');
});

test('the core\'s error on a number out of range reads in the field\'s words', () => {
  let state = reducer(initialState(''), { type: 'setField', key: 'gpus', value: '-8' });
  state = reducer(state, { type: 'estimated', reply: { ok: false, error: { status: 'invalid', path: 'system.gpus',
    message: 'must be an integer from 1 to 10000000 GPUs, got -8' } } });
  assert.equal(state.error.message, '-8 GPUs is out of range (from 1 GPU to 10 million GPUs)');
  assert.equal(state.error.path, 'system.gpus');
  assert.deepEqual(defaultInputs().gpus, '8');
});
