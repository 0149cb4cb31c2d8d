// Offline in a real Chromium: after one visit the service worker holds the
// whole site, so with the network off a reload shows the same figures, an
// input change is estimated again and the search runs, all from the cache.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openSiteAt } from './browser.mjs';

let opened, page, pageErrors;

before(async () => {
  opened = await openSiteAt({ width: 1200, height: 1000 }, '#v=1&model=llama-3.1-70b&gpus=64&tp=8&pp=4&sgpus=');
  ({ page, errors: pageErrors } = opened);
});

after(async () => {
  await opened?.close();
});

test('with the network off, a reload shows the same page and the core still answers', async () => {
  const cached = await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    const cache = await caches.open('trainplan');
    return (await cache.keys()).map((r) => new URL(r.url).pathname);
  });
  const files = (await (await fetch(opened.url + 'precache.json')).json()).map((f) => '/' + f.replace(/^\.\//, ''));
  for (const f of files) assert.ok(cached.includes(f), `${f} cached`);

  const online = await page.locator('[data-testid=peak-gib]').getAttribute('data-bytes');
  await page.context().setOffline(true);
  await page.reload();
  await page.locator('[data-testid=peak-gib]').waitFor();
  assert.equal(await page.locator('[data-testid=peak-gib]').getAttribute('data-bytes'), online);

  await page.fill('#field-pp', '8');
  await page.waitForFunction((before) => document.querySelector('[data-testid=peak-gib]')?.dataset.bytes !== before, online);
  await page.locator('[data-testid=plan-table] tbody tr').first().waitFor();
  await page.context().setOffline(false);
});

test('no errors in the page console', () => {
  assert.deepEqual(pageErrors, []);
});
