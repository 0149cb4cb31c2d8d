// Sharing in a real Chromium: the link in the share panel restores exactly
// the same inputs and results in a fresh page, and the copy button puts it on
// the clipboard; the embed code, dropped into a page as it would be into a
// wiki, shows the calculator without header, search or footer, read-only
// when locked (every input disabled) and live when not.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.mjs';
import { defaultInputs } from '../../web/src/fields.js';
import { hashOf, openSiteAt } from './browser.mjs';

const SCREENSHOTS = join(ROOT, 'tests', 'e2e', 'screenshots');
const INPUTS = { ...defaultInputs(), model: 'llama-3.1-70b', gpus: '64', tp: '8', pp: '4', mbs: '2', recompute: 'selective' };
let opened, page, pageErrors;

before(async () => {
  opened = await openSiteAt({ width: 1200, height: 1000 }, hashOf(INPUTS));
  ({ page, errors: pageErrors } = opened);
});

after(async () => {
  await opened?.close();
});

/** Every input's value and the headline figures a page shows. */
async function shown(view) {
  await view.locator('[data-testid=peak-gib]').waitFor();
  const inputs = await view.$$eval('.inputs [name]', (els) => Object.fromEntries(els.map((el) =>
    [el.name, el.type === 'checkbox' ? (el.checked ? '1' : '0') : el.value])));
  const figures = await view.$$eval('[data-testid] [data-value], [data-testid][data-value]', (els) =>
    els.map((el) => `${el.dataset.testid || el.closest('[data-testid]').dataset.testid}=${el.dataset.value}`));
  return { inputs, figures, peak: await view.locator('[data-testid=peak-gib]').textContent() };
}

test('the shared link restores the same inputs and results, and copies to the clipboard', async () => {
  const here = await shown(page);
  assert.equal(here.inputs.tp, '8');
  await page.locator('[data-testid=share] summary').click();
  const link = await page.inputValue('#share-link');
  assert.ok(link.startsWith(opened.url) && link.includes('#v=2&'), link);
  const fresh = await opened.newPage({ permissions: ['clipboard-read', 'clipboard-write'] });
  await fresh.goto(link);
  assert.deepEqual(await shown(fresh), here);
  // the copy button in a context that grants the clipboard
  await fresh.locator('[data-testid=share] summary').click();
  await fresh.locator('[data-testid=share-link-copy]').click();
  await fresh.locator('[data-testid=share-link-status]', { hasText: 'Copied.' }).waitFor();
  assert.equal(await fresh.evaluate(() => navigator.clipboard.readText()), link);
  await fresh.close();
});

/** The src of the embed code the panel shows, with the lock box as asked. */
async function embedSrc(locked) {
  const box = page.locator('#share-lock');
  if ((await box.isChecked()) !== locked) await box.click();
  const code = await page.inputValue('#share-embed');
  assert.match(code, /^<iframe src="[^"<>]+" title="trainplan" width="100%" height="1000" style="border:0" loading="lazy"><\/iframe>$/);
  return { code, src: code.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&') };
}

test('a locked embed in an iframe shows the same results with every input disabled', async () => {
  const here = await shown(page);
  const { code, src } = await embedSrc(true);
  assert.ok(src.startsWith(`${opened.url}?embed=1&lock=1#v=2&`), src);
  const host = await opened.newPage({ viewport: { width: 900, height: 1100 } });
  await host.setContent(`<!doctype html><title>wiki</title><h1>Our 70B plan</h1>${code}`);
  const frame = host.frameLocator('iframe');
  await frame.locator('[data-testid=peak-gib]').waitFor();
  assert.equal(await frame.locator('[data-testid=peak-gib]').textContent(), here.peak);
  assert.match(await frame.locator('[data-testid=embed-bar]').textContent(), /read-only/);
  assert.equal(await frame.locator('header, footer, [data-testid=search], [data-testid=share]').count(), 0);
  const controls = frame.locator('.inputs input, .inputs select');
  const n = await controls.count();
  assert.ok(n > 20);
  for (let i = 0; i < n; i++) assert.ok(await controls.nth(i).isDisabled(), `control ${i} is disabled`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await host.screenshot({ path: join(SCREENSHOTS, 'embed-locked.png') });
  await host.close();
});

test('an unlocked embed stays live, and its link opens the full page', async () => {
  const { src } = await embedSrc(false);
  assert.ok(src.startsWith(`${opened.url}?embed=1#v=2&`), src);
  const view = await opened.newPage();
  await view.goto(src);
  const before = await view.locator('[data-testid=peak-gib]').textContent();
  assert.ok(await view.locator('#field-tp').isEnabled());
  await view.locator('[data-testid=embed-inputs] > summary').click(); // the inputs fold under the results
  await view.fill('#field-pp', '8');
  await view.waitForFunction((old) => document.querySelector('[data-testid=peak-gib]').textContent !== old, before);
  const full = await view.locator('[data-testid=embed-bar] a').getAttribute('href');
  assert.match(full, /^\/#v=2&.*pp=8/);
  await view.close();
});

test('no errors in the page console', () => {
  assert.deepEqual(pageErrors, []);
});
