// Links (web/src/url.js): a link made before the presets were named after
// their source still opens; a link carries only what differs from the
// defaults and its count, so a cut one is found; what a link cannot read is
// named, and the rest is read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeHash, encodeHash, unknownPresets } from '../../web/src/url.js';
import { defaultInputs } from '../../web/src/fields.js';

test('old preset names in a link read as the current ones', () => {
  const { inputs, problems } = decodeHash('#v=1&model=vit-seed002&cluster=seed002-b200&gpu=b200-seed002');
  assert.deepEqual(problems, []);
  assert.equal(inputs.model, 'vit-era5');
  assert.equal(inputs.cluster, 'lbnl-b200');
  assert.equal(inputs.gpu, 'b200-lbnl');
});

test('current preset names in a link are kept as they are', () => {
  const { inputs } = decodeHash('#v=1&model=gpt3-1t&cluster=lbnl-a100&gpu=a100-lbnl');
  assert.equal(inputs.model, 'gpt3-1t');
  assert.equal(inputs.cluster, 'lbnl-a100');
  assert.equal(inputs.gpu, 'a100-lbnl');
});

test('a link carries only what differs from the defaults, and ends with its count', () => {
  assert.equal(encodeHash(defaultInputs()), '#v=2&n=1');
  const inputs = { ...defaultInputs(), model: 'llama-3.1-70b', gpus: '64', tokens: '2T', mname: 'Qwen/Qwen3 8B' };
  const hash = encodeHash(inputs);
  assert.equal(hash, '#v=2&model=llama-3.1-70b&mname=Qwen%2FQwen3+8B&gpus=64&tokens=2T&n=5');
  assert.deepEqual(decodeHash(hash), { inputs, pinned: null, problems: [] });
  // a pin carries where it differs from the current inputs
  const pinned = { ...inputs, tp: '4' };
  const both = encodeHash(inputs, pinned);
  assert.match(both, /&pin=1&pin\.tp=4&n=7$/);
  assert.deepEqual(decodeHash(both).pinned, pinned);
});

test('a cut link says so, names the setting it may have cut, and keeps the rest', () => {
  const inputs = { ...defaultInputs(), model: 'llama-3.1-70b', gpus: '64', gbs: '2048', tp: '8' };
  const hash = encodeHash(inputs);
  assert.equal(hash, '#v=2&model=llama-3.1-70b&gpus=64&gbs=2048&tp=8&n=5');
  // cut inside gbs's value: 2048 would read as 20
  const { inputs: read, problems } = decodeHash(hash.slice(0, hash.indexOf('gbs=20') + 6));
  assert.deepEqual(problems, ['this link looks cut: it does not end with the count of its settings (n), so the ' +
    'settings it lost show their defaults; its last setting, gbs="20", may have lost its end and is left at its default']);
  assert.deepEqual([read.model, read.gpus, read.gbs, read.tp], ['llama-3.1-70b', '64', '1024', '2']);
  // cut inside the count itself, or a count that does not match
  for (const cut of [hash.slice(0, -1), hash.replace('n=5', 'n=4'), hash.replace('&n=5', '')]) {
    assert.match(decodeHash(cut).problems[0], /^this link looks cut/, cut);
  }
  // the same link whole reads with no problem, and an old (version 1) link has no count to check
  assert.deepEqual(decodeHash(hash).problems, []);
  assert.deepEqual(decodeHash('#v=1&model=llama-3.1-70b&gpus=64').problems, []);
});

test('a link names the keys and values it could not read, and reads the rest', () => {
  const { inputs, problems } = decodeHash('#v=1&model=llama-3.1-70b&colour=red&gpus=-8&tokens=2T&mbs=1.5&zero=7');
  assert.deepEqual(problems, [
    'link keys not known, ignored: "colour"',
    'link value for gpus ignored: -8 GPUs is out of range (from 1 GPU to 10 million GPUs)',
    'link value for mbs ignored: "1.5" is not a whole number of samples (from 1 sample to 100,000 samples)',
    'link value for zero ignored: "7" is not one of 0, 1, 2, 3',
  ]);
  assert.deepEqual([inputs.model, inputs.gpus, inputs.tokens, inputs.mbs], ['llama-3.1-70b', '8', '2T', '1']);
  // a preset name cut short passes the shape; the core's list names it
  const cut = decodeHash('#v=1&model=llama-3.1-7&gpus=64');
  assert.deepEqual(cut.problems, []);
  const presets = { models: [{ name: 'llama-3.1-8b' }, { name: 'llama-3.1-70b' }], gpus: [{ name: 'h100-80gb' }],
    clusters: [{ name: 'dgx-h100' }] };
  const checked = unknownPresets(cut.inputs, presets, '');
  assert.deepEqual(checked.problems, ['link value for model ignored: "llama-3.1-7" is not a model trainplan knows ' +
    '(the link may be cut); showing llama-3.1-8b']);
  assert.deepEqual([checked.inputs.model, checked.inputs.gpus], ['llama-3.1-8b', '64']);
  assert.deepEqual(unknownPresets(defaultInputs(), presets, '').problems, []);
  // markup is named as text and never kept
  const hostile = decodeHash('#v=2&mname=%3Cb%3E&n=2');
  assert.deepEqual([hostile.inputs.mname, hostile.problems.length], ['', 1]);
});
