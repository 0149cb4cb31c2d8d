// The search view in a real Chromium: the WebAssembly search runs in web
// workers (split in parts over several, with progress, or whole in one) and
// its counts, top plans and explanation are the CLI's for the same document; the scatter and scaling charts draw; a heading sorts the table;
// "apply" loads a plan into the estimator, whose figures then match that
// plan's estimate, its precision too when "Try fp8" searched both; a bad constraint is marked at its field. Saves a
// screenshot.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { CLI, ROOT, cliSearch } from '../helpers.mjs';
import { defaultInputs, toSearchDocument } from '../../web/src/fields.js';
import { PLACEMENT_GROUPS } from '../../web/src/format.js';
import { hashOf, openSiteAt } from './browser.mjs';

const SCREENSHOTS = join(ROOT, 'tests', 'e2e', 'screenshots');
let opened, page, pageErrors;

const INPUTS = { ...defaultInputs(), model: 'llama-3.1-70b', gpus: '256', tp: '8', pp: '4' };

before(async () => {
  opened = await openSiteAt({ width: 1200, height: 1400 }, hashOf(INPUTS), '[data-testid=plan-table] tbody tr');
  ({ page, errors: pageErrors } = opened);
});

after(async () => {
  await opened?.close();
});

/** The search view on `view` shows the CLI's counts, plans, explanation,
 * scatter and scaling for the same document. */
async function assertShowsCli(view, cli, gpus) {
  const counts = await view.locator('[data-testid=search-counts]').textContent();
  assert.match(counts, new RegExp(`${cli.counts.candidates.toLocaleString('en-US')} plans on ${gpus.toLocaleString('en-US')} GPUs`));
  assert.match(counts, new RegExp(`${cli.counts.fit.toLocaleString('en-US')} fit`));
  const rows = await view.$$eval('[data-testid=plan-table] tbody tr', (trs) => trs.map((tr) =>
    Object.fromEntries([...tr.querySelectorAll('td[data-col]')].map((td) => [td.dataset.col, td.textContent]))));
  assert.equal(rows.length, cli.plans.length);
  rows.forEach((row, i) => {
    const p = cli.plans[i].plan;
    assert.deepEqual([row.tp, row.cp, row.pp, row.dp, row.b, row.sharding, row.recompute],
      [p.tp, p.cp, p.pp, p.dp, p.micro_batch, p.sharding, p.recompute].map(String));
  });
  const explain = await view.$$eval('[data-testid=explain] li', (lis) => lis.map((li) => li.textContent));
  assert.deepEqual(explain, Object.values(cli.explain));
  // the scatter: the sample, the front and the top plans; the scaling chart
  const dots = await view.locator('[data-testid=search-scatter] svg circle').count();
  assert.equal(dots, cli.sample.length + cli.pareto.length + cli.plans.length);
  const scaling = await view.locator('[data-testid=scaling-chart] svg circle').count();
  assert.equal(scaling, cli.scaling.filter((s) => s.fits).length);
  assert.match(await view.locator('[data-testid=min-gpus]').textContent(), new RegExp(`Fits from ${cli.min_gpus} GPUs`));
}

test('the search view shows the CLI\'s counts, plans and explanation', async () => {
  const doc = toSearchDocument(INPUTS);
  await assertShowsCli(page, cliSearch(doc), 256);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator('[data-testid=search]').screenshot({ path: join(SCREENSHOTS, 'search.png') });
});

test('a search split over several workers, with progress, shows what one worker shows', async () => {
  const inputs = { ...defaultInputs(), model: 'llama-3.1-70b', gpus: '1024', samsp: '1' };
  const cli = cliSearch(toSearchDocument(inputs));
  for (const workers of [3, 1]) {
    const view = await opened.newPage();
    // record every progress line the page shows
    await view.addInitScript(() => {
      window.progressSeen = [];
      new MutationObserver(() => {
        const el = document.querySelector('[data-testid=search-progress]');
        if (el && window.progressSeen.at(-1) !== el.textContent) window.progressSeen.push(el.textContent);
      }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await view.goto(`${opened.url}?workers=${workers}${hashOf(inputs)}`);
    await view.locator('[data-testid=plan-table] tbody tr').first().waitFor();
    await assertShowsCli(view, cli, 1024);
    const counts = await view.locator('[data-testid=search-counts]').textContent();
    assert.match(counts, new RegExp(`on ${workers} workers? \\(scaling included\\)`));
    const seen = await view.evaluate(() => window.progressSeen);
    if (workers > 1) {
      // 4 parts a worker; the last line before the merge counts every plan
      assert.ok(seen.some((t) => t.includes(`of ${4 * workers} parts`)), seen.join(' | '));
      assert.ok(seen.some((t) => t.includes(`${4 * workers} of ${4 * workers} parts, ${cli.counts.candidates.toLocaleString('en-US')} plans`)),
        seen.join(' | '));
    }
    await view.close();
  }
});

test('a search past its work budget says so, and a running search can be stopped', async () => {
  // 70B on 16,384 GPUs in nodes of 64, every sharding and micro-batches to 64:
  // more work than the budget, in the CLI and in the page's parts alike
  const inputs = { ...defaultInputs(), model: 'llama-3.1-70b', gpus: '16384', gpn: '64', samsp: '1', smb: '64',
    sgpus: '' };
  assert.equal(cliSearch(toSearchDocument(inputs)).truncated, true);
  const view = await opened.newPage();
  await view.goto(`${opened.url}?workers=2${hashOf(inputs)}`);
  await view.locator('[data-testid=search-truncated]').waitFor({ timeout: 60000 });
  assert.match(await view.locator('[data-testid=search-truncated]').textContent(), /stopped at its work budget/);
  // a new search of the same space, stopped while it runs: no error, no new result
  const before = await view.locator('[data-testid=search-counts]').textContent();
  await view.locator('#field-smb').fill('32');
  await view.locator('[data-testid=search-cancel]').click();
  await view.locator('[data-testid=search-progress]').waitFor({ state: 'detached' });
  assert.equal(await view.locator('[data-testid=search-error]').count(), 0);
  assert.equal(await view.locator('[data-testid=search-counts]').textContent(), before);
  await view.close();
});

test('the scaling chart shows throughput, MFU or time to train of the CLI\'s best plans', async () => {
  const cli = cliSearch(toSearchDocument(INPUTS));
  const fits = cli.scaling.filter((s) => s.fits);
  for (const [metric, label, note] of [['mfu', /MFU \(%\)/, (s) => `${(s.tokens_per_s / 1e6).toLocaleString('en-US', { maximumFractionDigits: 2 })} M tok/s`],
    ['time_to_train_days', /Days to train/, (s) => `${s.time_to_train_days.toLocaleString('en-US', { maximumFractionDigits: 1 })} d`]]) {
    await page.selectOption('#scaling-metric', metric);
    await page.locator('[data-testid=scaling-chart] svg').filter({ hasText: label }).waitFor();
    const texts = await page.$$eval('[data-testid=scaling-chart] svg g[aria-label=text] text', (ts) => ts.map((t) => t.textContent));
    assert.deepEqual(texts, fits.map(note));
    assert.equal(await page.locator('[data-testid=scaling-chart] svg circle').count(), fits.length);
  }
  await page.selectOption('#scaling-metric', 'tokens_per_s');
});

test('a heading sorts the plans', async () => {
  await page.getByRole('button', { name: 'peak GiB' }).click();
  const peaks = await page.$$eval('[data-testid=plan-table] td[data-col="peak GiB"]', (tds) => tds.map((td) => Number(td.textContent)));
  assert.deepEqual(peaks, [...peaks].sort((a, b) => a - b));
  await page.locator('[data-testid=plan-table] thead button').first().click(); // back to rank order
  const ranks = await page.$$eval('[data-testid=plan-table] td[data-col="#"]', (tds) => tds.map((td) => Number(td.textContent)));
  assert.deepEqual(ranks, ranks.map((_, i) => i + 1));
});

test('apply loads a plan into the estimator', async () => {
  const doc = toSearchDocument(INPUTS);
  const cli = cliSearch(doc);
  const best = cli.plans[0];
  await page.locator('[data-testid=plan-table] tr[data-rank="1"] [data-testid=apply]').click();
  await page.waitForFunction((want) => {
    const el = document.querySelector('[data-testid=step-s]');
    return el && Math.abs(Number(el.dataset.value) - want) <= 1e-9 * want;
  }, best.estimate.time.step_s);
  assert.equal(await page.inputValue('#field-tp'), String(best.plan.tp));
  assert.equal(await page.inputValue('#field-pp'), String(best.plan.pp));
  assert.equal(await page.inputValue('#field-mbs'), String(best.plan.micro_batch));
  // the plan's placement comes with it: ranks per node, unless found in Megatron's order
  const place = best.plan.order === undefined ? PLACEMENT_GROUPS.map((d) => best.plan.per_node[d]).join(',') : '';
  assert.equal(await page.inputValue('#field-place'), place);
  const mfu = Number(await page.locator('[data-testid=mfu]').getAttribute('data-value'));
  assert.ok(Math.abs(mfu - best.estimate.throughput.mfu) <= 1e-12);
});

test('"Try fp8" searches both precisions, and apply sets fp8 from the plan', async () => {
  const presets = JSON.parse(execFileSync(CLI, ['presets']).toString());
  const cli = cliSearch(toSearchDocument({ ...INPUTS, sfp8: '1' }, presets));
  const best = cli.plans[0];
  assert.equal(best.plan.fp8, true); // H100s: fp8 GEMMs at twice the BF16 peak
  await page.locator('#field-sfp8').click();
  const first = page.locator('[data-testid=plan-table] tr[data-rank="1"] td[data-col=precision]');
  await page.waitForFunction(() => document.querySelector(
    '[data-testid=plan-table] tr[data-rank="1"] td[data-col=precision]')?.textContent === 'fp8');
  assert.equal(await first.textContent(), 'fp8');
  const explain = await page.$$eval('[data-testid=explain] li', (lis) => lis.map((li) => li.textContent));
  assert.deepEqual(explain, Object.values(cli.explain));
  assert.equal(await page.isChecked('#field-fp8'), false);
  await page.locator('[data-testid=plan-table] tr[data-rank="1"] [data-testid=apply]').click();
  await page.waitForFunction((want) => {
    const el = document.querySelector('[data-testid=step-s]');
    return el && Math.abs(Number(el.dataset.value) - want) <= 1e-9 * want;
  }, best.estimate.time.step_s);
  assert.equal(await page.isChecked('#field-fp8'), true);
  // back to the page's own precision for the tests after this one
  await page.locator('#field-sfp8').click();
  await page.locator('#field-fp8').click();
});

test('a bad constraint is marked at its field', async () => {
  await page.fill('#field-smem', '0');
  const error = page.locator('[data-testid=search-error]');
  await error.waitFor();
  assert.match(await error.textContent(), /search\.memory_fraction: must be a fraction above 0/);
  assert.equal(await page.getAttribute('#field-smem', 'aria-invalid'), 'true');
  await page.fill('#field-smem', '80');
  await error.waitFor({ state: 'detached' });
  await page.fill('#field-sgpus', '64,x');
  await error.waitFor();
  assert.match(await error.textContent(), /search\.gpus/);
  await page.fill('#field-sgpus', '64,128');
  await error.waitFor({ state: 'detached' });
});

test('no errors in the page console', () => {
  assert.deepEqual(pageErrors, []);
});
