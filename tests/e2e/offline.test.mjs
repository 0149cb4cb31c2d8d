// Offline in a real Chromium, served as ci/serve.sh serves the page (Vite's
// preview server, whose "Vary: Origin" once kept the bundle out of reach
// offline): after one visit the service worker holds the whole site, so with
// the network off a reload shows the same figures, an input change is
// estimated again and the search runs, all from the cache. A file that does
// not arrive gives a message, not a page stuck on "Loading trainplan…".
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openSiteAt } from './browser.mjs';
import { serveLikeServeSh } from './server.mjs';

let opened, page, pageErrors;

before(async () => {
  opened = await openSiteAt({ width: 1200, height: 1000 }, '#v=1&model=llama-3.1-70b&gpus=64&tp=8&pp=4&sgpus=',
    '[data-testid=peak-gib]', serveLikeServeSh);
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
  // the header that made the cached bundle unreachable offline is still sent
  assert.match((await fetch(opened.url)).headers.get('vary') ?? '', /Origin/);

  const online = await page.locator('[data-testid=peak-gib]').getAttribute('data-bytes');
  await page.context().setOffline(true);
  await page.reload();
  await page.locator('[data-testid=peak-gib]').waitFor({ timeout: 15000 });
  assert.equal(await page.locator('[data-testid=peak-gib]').getAttribute('data-bytes'), online);

  await page.fill('#field-pp', '8');
  await page.waitForFunction((before) => document.querySelector('[data-testid=peak-gib]')?.dataset.bytes !== before, online);
  await page.locator('[data-testid=plan-table] tbody tr').first().waitFor();
  await page.context().setOffline(false);
});

test('no errors in the page console', () => {
  assert.deepEqual(pageErrors, []);
});

test('a page whose script or core does not arrive says so instead of loading for ever', async () => {
  // new contexts: no service worker to answer from its cache
  const noScript = await opened.newPage({ viewport: { width: 800, height: 600 } });
  await noScript.route('**/assets/index-*.js', (route) => route.abort());
  await noScript.goto(opened.url);
  await noScript.waitForFunction(() => /could not load/.test(document.querySelector('#app .loading')?.textContent),
    null, { timeout: 10000 });
  assert.match(await noScript.locator('#app .loading').textContent(),
    /^trainplan could not load index-[\w-]+\.js\. Reload when online/);
  await noScript.close();

  const noCore = await opened.newPage({ viewport: { width: 800, height: 600 } });
  await noCore.route('**/wasm/worker.js', (route) => route.abort());
  await noCore.goto(opened.url);
  await noCore.locator('[data-testid=error]').waitFor({ timeout: 10000 });
  assert.match(await noCore.locator('[data-testid=error]').textContent(), /the WebAssembly core did not load/);
  await noCore.close();
});
