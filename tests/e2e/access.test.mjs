// Usable by keyboard and on a phone, in a real Chromium: every control has
// a label or a name, Tab reaches the inputs and typing changes the
// estimate, and at a phone's width nothing but the wide tables (which
// scroll inside their own box) is wider than the screen, in light and dark.
// Saves phone screenshots.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.mjs';
import { openSiteAt } from './browser.mjs';

const SCREENSHOTS = join(ROOT, 'tests', 'e2e', 'screenshots');
let opened, page, pageErrors;

before(async () => {
  opened = await openSiteAt({ width: 390, height: 844 }, '#v=1&model=llama-3.1-70b&gpus=64&tp=8&pp=4&sgpus=64,128', '[data-testid=heatmap-chart] svg');
  ({ page, errors: pageErrors } = opened);
  await page.locator('[data-testid=plan-table] tbody tr').first().waitFor();
});

after(async () => {
  await opened?.close();
});

test('every control has a label or a name', async () => {
  const unnamed = await page.$$eval('input, select, textarea, button', (els) => els.filter((el) => {
    if (el.type === 'hidden') return false;
    const named = (el.labels && el.labels.length > 0) || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
    return !(named || (el.tagName === 'BUTTON' && el.textContent.trim()));
  }).map((el) => el.outerHTML.slice(0, 80)));
  assert.deepEqual(unnamed, []);
});

test('Tab reaches the inputs, and typing changes the estimate', async () => {
  const before = await page.locator('[data-testid=peak-gib]').getAttribute('data-bytes');
  let focused = '';
  for (let i = 0; i < 160 && focused !== 'field-tp'; i++) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate(() => document.activeElement?.id || '');
  }
  assert.equal(focused, 'field-tp');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('4');
  await page.waitForFunction((b) => document.querySelector('[data-testid=peak-gib]')?.dataset.bytes !== b, before);
  assert.equal(await page.inputValue('#field-tp'), '4');
});

test('at a phone\'s width the page fits the screen, in light and dark', async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `${scheme}: the page is ${overflow} px wider than the screen`);
    await page.screenshot({ path: join(SCREENSHOTS, `phone-${scheme}.png`) });
  }
});

test('no errors in the page console', () => {
  assert.deepEqual(pageErrors, []);
});
