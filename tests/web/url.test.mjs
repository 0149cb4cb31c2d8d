// A link made before the presets were named after their source still
// opens: the page reads the old preset names as the current ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeHash } from '../../web/src/url.js';

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
