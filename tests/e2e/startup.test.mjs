// Start-up without a working core. The page waits a moment for its first
// result so that form, figures and charts appear in one paint (main.js);
// that wait must end. A core whose WebAssembly cannot be fetched answers
// with an error, shown at the top of the results; a worker that never
// answers leaves the form usable once the wait is over.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openSite } from './browser.mjs';

let opened;

before(async () => {
  opened = await openSite({ width: 1200, height: 1000 });
});

after(async () => {
  await opened?.close();
});

test('a core that cannot load: the form renders and the page says why', async () => {
  const page = await opened.newPage({ viewport: { width: 1200, height: 1000 } });
  await page.route('**/trainplan-core.wasm', (route) => route.abort());
  await page.goto(opened.url);
  const error = page.locator('[data-testid=error]');
  await error.waitFor();
  assert.match(await error.textContent(), /\S/);
  assert.equal(await page.locator('#field-tp').count(), 1);
  assert.equal(await page.locator('.loading').count(), 0, 'the loading line is gone');
  await page.close();
});

test('a worker that never answers: the form still renders, without figures', async () => {
  const page = await opened.newPage({ viewport: { width: 1200, height: 1000 } });
  await page.route('**/wasm/worker.js', () => {}); // neither fulfilled nor aborted: the worker never starts
  const start = Date.now();
  await page.goto(opened.url, { waitUntil: 'domcontentloaded' });
  await page.locator('#field-tp').waitFor();
  assert.ok(Date.now() - start < 5000, 'the wait for a first result ends');
  assert.equal(await page.locator('[data-testid=peak-gib]').count(), 0);
  await page.locator('#field-tp').fill('2'); // still an ordinary form
  assert.equal(await page.locator('#field-tp').inputValue(), '2');
  await page.close();
});
