// Hostile links in a real Chromium: markup in a field (also in a pinned
// field), numbers past any limit, broken percent-encoding and an overlong
// hash. Each is refused with a message that names the field and the reason,
// the page keeps working with the values it can use, and nothing runs:
// no dialog, no injected element, no page error.
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

/** Opens `hash` in a fresh page; returns what the page says and shows. */
async function open(hash) {
  const page = await opened.newPage();
  const dialogs = [], errors = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(opened.url + hash);
  await page.locator('[data-testid=peak-gib], [data-testid=error]').first().waitFor();
  const text = async (selector) => ((await page.locator(selector).count()) > 0 ? page.locator(selector).first().textContent() : null);
  const notice = (await text('.notice')) ?? '';
  const error = await text('[data-testid=error]');
  const injected = await page.evaluate(() => document.querySelectorAll('img[src=x], [onerror]').length +
    [...document.scripts].filter((s) => s.textContent.includes('alert')).length);
  return { page, dialogs, errors, notice, error, injected };
}

test('markup in a field and in a pinned field is refused, never inserted', async () => {
  const r = await open('#v=1&gpu=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&pin=1&pin.model=%3Cscript%3Ealert(2)%3C%2Fscript%3E');
  // the value is named as text, which is all the page ever makes of it
  assert.match(r.notice, /link value for gpu ignored: "\\"><img src=x onerror=alert\(1\)>" is not the name of a gpu/);
  assert.match(r.notice, /link value for pin\.model ignored: "<script>alert\(2\)<\/script>" is not the name of a model/);
  assert.equal(r.injected, 0);
  assert.deepEqual([r.dialogs, r.errors], [[], []]);
  assert.equal(await r.page.inputValue('#field-gpu'), 'h100-80gb');
  await r.page.locator('[data-testid=compare]').waitFor(); // the pin itself is kept, with the values it could read
  await r.page.close();
});

test('numbers past any limit are refused in the link, each named with its range', async () => {
  const r = await open('#v=1&gpus=99999999999999999999999&tokens=1e400&layers=-5');
  assert.match(r.notice, /link value for gpus ignored: 99999999999999999999999 GPUs is out of range \(from 1 GPU to 10 million GPUs\)/);
  assert.match(r.notice, /link value for tokens ignored: "1e400" is too large a number/);
  assert.match(r.notice, /link value for layers ignored: -5 layers is out of range \(from 1 layer to 10,000 layers\)/);
  assert.equal(await r.page.inputValue('#field-gpus'), '8');
  assert.equal(r.error, null);
  await r.page.close();

  const big = await open('#v=1&gpus=999999999999999');
  assert.match(big.notice, /link value for gpus ignored: 999999999999999 GPUs is out of range/);
  assert.equal(await big.page.inputValue('#field-gpus'), '8');
  assert.equal(big.error, null);
  assert.deepEqual([big.dialogs, big.errors], [[], []]);
  await big.page.close();
});

test('broken percent-encoding and an overlong hash are refused with a message', async () => {
  const broken = await open('#v=1&tp=%E0%A4%A&pp=%ZZ&cp=%ED%A0%80&mbs=2');
  for (const key of ['tp', 'pp', 'cp']) assert.match(broken.notice, new RegExp(`link value for ${key} ignored`));
  assert.equal(await broken.page.inputValue('#field-mbs'), '2'); // the readable value is kept
  assert.deepEqual([broken.dialogs, broken.errors], [[], []]);
  await broken.page.close();

  const long = await open('#v=1&model=' + 'x'.repeat(5000));
  assert.match(long.notice, /link ignored: longer than 2000 characters/);
  assert.equal(await long.page.inputValue('#field-model'), 'llama-3.1-8b');
  await long.page.close();
});
