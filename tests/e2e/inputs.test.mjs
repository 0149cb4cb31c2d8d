// Inputs people type, links people paste and config.json files people
// import, in a real Chromium: 2T and 8k read as numbers; a value out of range
// is named in the field's unit at the field; a micro-batch that breaks the
// batch rule marks Micro-batch; a cut link, a link cut inside a model name
// and a link with a key the page does not know each say what they could not
// read and show the rest with its results; an imported config.json names the
// model in the select, and empty fields show the preset's values.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT } from '../helpers.mjs';
import { defaultInputs } from '../../web/src/fields.js';
import { encodeHash } from '../../web/src/url.js';
import { openSite } from './browser.mjs';

let opened;

before(async () => {
  opened = await openSite({ width: 1200, height: 1000 });
});

after(async () => {
  await opened?.close();
});

/** A fresh page at `hash`, once its first result or error is in. */
async function open(hash = '') {
  const page = await opened.newPage({ viewport: { width: 1200, height: 1000 } });
  await page.goto(opened.url + hash);
  await page.locator('[data-testid=peak-gib], [data-testid=error]').first().waitFor();
  return page;
}

const shownConfig = async (page) => JSON.parse(await page.locator('[data-testid=config-json]').textContent());

test('2T, 8k and 1e12 read as numbers, and reach the core', async () => {
  const page = await open();
  await page.fill('#field-tokens', '2T');
  await page.fill('#field-gbs', '2k');
  await page.locator('[data-testid=config-json]', { hasText: '"global_batch": 2000' }).waitFor({ state: 'attached' });
  const config = await shownConfig(page);
  assert.equal(config.training.train_tokens, 2e12);
  assert.equal(await page.locator('#field-tokens').getAttribute('aria-invalid'), 'false');
  await page.fill('#field-tokens', '1e12');
  await page.locator('[data-testid=config-json]', { hasText: '"train_tokens": 1000000000000' }).waitFor({ state: 'attached' });
  assert.equal(await page.locator('[data-testid=error]').count(), 0);
  await page.close();
});

test('a value out of range is named in the field\'s unit, at the field and above the results', async () => {
  const page = await open();
  await page.fill('#field-gpus', '-8');
  const error = page.locator('[data-testid=error]');
  await error.waitFor();
  assert.equal((await error.textContent()).trim(), 'system.gpus: -8 GPUs is out of range (from 1 GPU to 10 million GPUs)');
  assert.equal(await page.locator('#field-gpus-error').textContent(), '-8 GPUs is out of range (from 1 GPU to 10 million GPUs)');
  await page.fill('#field-loader', '1e20');
  assert.equal(await page.locator('#field-loader-error').textContent(),
    '1e20 GB/s is out of range (from 0.001 GB/s to 1 million GB/s)');
  await page.close();
});

test('a micro-batch that breaks the batch rule marks Micro-batch, not only Global batch', async () => {
  const page = await open();
  await page.fill('#field-mbs', '3');
  await page.locator('[data-testid=error]').waitFor();
  assert.equal(await page.locator('#field-mbs').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('#field-mbs-error').textContent(), 'Global batch: 1024 is not a multiple of micro_batch*dp=3*4');
  assert.equal(await page.locator('#field-gbs').getAttribute('aria-invalid'), 'true');
  await page.close();
});

test('a cut link says so and shows what it could read, with results', async () => {
  const hash = encodeHash({ ...defaultInputs(), model: 'llama-3.1-70b', gpus: '64', tp: '8', pp: '4', gbs: '512' });
  assert.equal(hash, '#v=2&model=llama-3.1-70b&gpus=64&gbs=512&tp=8&pp=4&n=6');
  const page = await open(hash.slice(0, hash.indexOf('&gbs=') + 6)); // cut inside 512: tp and pp are lost
  const notice = await page.locator('.notice').textContent();
  assert.match(notice, /this link looks cut/);
  assert.match(notice, /its last setting, gbs="5", may have lost its end/);
  assert.equal(await page.inputValue('#field-model'), 'llama-3.1-70b');
  assert.equal(await page.inputValue('#field-gpus'), '64');
  assert.equal(await page.inputValue('#field-gbs'), '1024');
  assert.equal(await page.inputValue('#field-tp'), '2'); // the default
  await page.locator('[data-testid=peak-gib]').waitFor();
  await page.close();
});

test('a link cut inside a model name, or with a key the page does not know, names it and shows the rest', async () => {
  const page = await open('#v=1&gpus=64&colour=red&model=llama-3.1-7');
  await page.locator('.notice', { hasText: 'llama-3.1-7' }).waitFor();
  const notice = await page.locator('.notice').textContent();
  assert.match(notice, /link value for model ignored: "llama-3\.1-7" is not a model trainplan knows \(the link may be cut\); showing llama-3\.1-8b/);
  assert.match(notice, /link keys not known, ignored: "colour"/);
  assert.equal(await page.inputValue('#field-model'), 'llama-3.1-8b');
  assert.equal(await page.inputValue('#field-gpus'), '64');
  await page.locator('[data-testid=peak-gib]').waitFor();
  await page.close();
});

test('an imported config.json names the model in the select; empty fields show the preset\'s values', async () => {
  const page = await open();
  // the placeholders come with the core's presets, which may follow the first result
  await page.waitForFunction(() => document.querySelector('#field-layers').placeholder !== '');
  assert.equal(await page.getAttribute('#field-layers', 'placeholder'), '32'); // llama-3.1-8b's
  assert.equal(await page.getAttribute('#field-vocab', 'placeholder'), '128256');
  await page.locator('[data-testid=model-import] summary').click();
  await page.setInputFiles('[data-testid=hf-file]', join(ROOT, 'tests', 'web', 'fixtures', 'gemma-2-9b.config.json'));
  await page.locator('[data-testid=hf-report]').waitFor();
  const selected = await page.$eval('#field-model', (el) => el.selectedOptions[0].textContent);
  assert.equal(selected, 'google/gemma-2-9b (imported)');
  assert.ok(await page.$eval('#field-model', (el) => el.getBoundingClientRect().right <= el.closest('form').getBoundingClientRect().right));
  assert.equal(await page.inputValue('#field-mname'), 'google/gemma-2-9b');
  // Gemma 2's window on every other layer fills the window fields
  assert.equal(await page.inputValue('#field-win'), '4096');
  assert.equal(await page.inputValue('#field-gevery'), '2');
  await page.locator('[data-testid=config-json]', { hasText: '"google/gemma-2-9b"' }).waitFor({ state: 'attached' });
  assert.match(await page.locator('.plan').first().textContent(), /^9\.24 B parameters/);
  // the link carries the name, and a preset picked over it replaces the import
  assert.match(new URL(page.url()).hash, /&mname=google%2Fgemma-2-9b&/);
  await page.selectOption('#field-model', 'mistral-7b');
  assert.equal(await page.inputValue('#field-mname'), '');
  assert.equal(await page.inputValue('#field-layers'), '');
  await page.close();
});

test('the page lists its references with authors, title, venue, year and arXiv id', async () => {
  const page = await open();
  const references = page.locator('[data-testid=references]');
  await references.waitFor({ state: 'attached' });
  const fujii = await references.locator('li[data-key="Fujii et al. 2024"]').textContent();
  assert.match(fujii, /Kazuki Fujii, Kohei Watanabe, Rio Yokota\. Accelerating Large Language Model Training with 4D Parallelism/);
  assert.match(fujii, /arXiv preprint, 2024\.\s*arXiv:2411\.06465/);
  assert.doesNotMatch(await page.locator('body').textContent(), /seed/i);
  await page.close();
});
