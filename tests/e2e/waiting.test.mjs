// The estimate never waits behind a search (web/src/engine.js gives it a
// worker of its own): in a real Chromium, while a DeepSeek-V3 search over
// four GPU counts runs (seconds), switching the model to Mixtral 8x22B shows
// its estimate in a fraction of the time its own search takes to end (a
// third at most: a shared machine's load moves both), and the old model's
// figures are dimmed while the new estimate is pending.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultInputs } from '../../web/src/fields.js';
import { hashOf, openSite } from './browser.mjs';

let opened;

before(async () => {
  opened = await openSite({ width: 1200, height: 1000 });
});

after(async () => {
  await opened?.close();
});

const LONG_SEARCH = { ...defaultInputs(), model: 'deepseek-v3', gpus: '1024', sgpus: '256,512,2048,4096' };

for (const workers of [1, 2]) {
  test(`switching model during a search (${workers} search worker${workers > 1 ? 's' : ''}): the new estimate first`, async (t) => {
    const page = await opened.newPage({ viewport: { width: 1200, height: 1000 } });
    // every state of the figures, timed: the peak memory shown and whether
    // the estimate block is marked pending (dimmed)
    await page.addInitScript(() => {
      window.figures = [];
      new MutationObserver(() => {
        const peak = document.querySelector('[data-testid=peak-gib]')?.dataset.bytes;
        const block = document.querySelector('[data-testid=estimate]');
        const state = { peak, pending: block?.dataset.pending === 'true', dimmed: !!block?.classList.contains('stale') };
        const last = window.figures.at(-1);
        if (!last || last.peak !== state.peak || last.pending !== state.pending) window.figures.push({ t: performance.now(), ...state });
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    await page.goto(`${opened.url}?workers=${workers}${hashOf(LONG_SEARCH)}`);
    await page.locator('[data-testid=search-progress]').waitFor({ timeout: 20000 });
    const deepseekPeak = await page.locator('[data-testid=peak-gib]').getAttribute('data-bytes');

    const switched = await page.evaluate(() => performance.now());
    await page.selectOption('#field-model', 'mixtral-8x22b');
    await page.waitForFunction((old) => document.querySelector('[data-testid=peak-gib]')?.dataset.bytes !== old,
      deepseekPeak, { timeout: 20000 });
    // the Mixtral search the switch started, after the DeepSeek-V3 search's
    // work in progress
    await page.locator('[data-testid=search-progress]').waitFor({ state: 'detached', timeout: 60000 });
    const searched = await page.evaluate(() => performance.now());
    assert.equal(await page.locator('[data-testid=search-error]').count(), 0);
    await page.locator('[data-testid=plan-table] tbody tr').first().waitFor();

    const figures = (await page.evaluate(() => window.figures)).filter((f) => f.t >= switched);
    const shown = figures.find((f) => f.peak !== deepseekPeak);
    const estimateMs = shown.t - switched, searchMs = searched - switched;
    t.diagnostic(`new estimate ${estimateMs.toFixed(0)} ms, search done ${searchMs.toFixed(0)} ms after the switch`);
    assert.ok(estimateMs < 2000, `new estimate after ${estimateMs.toFixed(0)} ms`);
    assert.ok(estimateMs * 3 < searchMs, `estimate ${estimateMs.toFixed(0)} ms, search ended ${searchMs.toFixed(0)} ms after the switch`);
    // until then the old model's figures stay, dimmed; the new ones are not
    const waiting = figures.filter((f) => f.t < shown.t);
    assert.ok(waiting.length > 0 && waiting.every((f) => f.pending && f.dimmed && f.peak === deepseekPeak),
      JSON.stringify(figures));
    assert.ok(figures.filter((f) => f.t >= shown.t).every((f) => !f.pending && !f.dimmed && f.peak === shown.peak),
      JSON.stringify(figures));
    await page.close();
  });
}
