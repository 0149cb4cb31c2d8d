// The hardware what-if heatmap (Subramanian et al. 2024 Figures 5 and 6) in a
// real Chromium: a sweep run in the page's workers gives every point of the
// CLI's `trainplan sweep` on the same document; a merged CLI sweep file of
// three axes loads with the third held; a hostile file is refused with a
// reason and runs nothing. Saves a screenshot.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, cliSweep } from '../helpers.mjs';
import { defaultInputs } from '../../web/src/fields.js';
import { SWEEP_AXES, sweepDocument } from '../../web/src/sweep.js';
import { hashOf, openSiteAt } from './browser.mjs';

const SCREENSHOTS = join(ROOT, 'tests', 'e2e', 'screenshots');
const INPUTS = { ...defaultInputs(), model: 'gpt3-175b', cluster: 'lbnl-b200', gpu: 'b200-lbnl', gpus: '512',
  seq: '2048', gbs: '1024', sgpus: '' };
let opened, page, pageErrors;

before(async () => {
  opened = await openSiteAt({ width: 1200, height: 1600 }, hashOf(INPUTS), '[data-testid=sweep-run]');
  ({ page, errors: pageErrors } = opened);
});

after(async () => {
  await opened?.close();
});

/** The sweep table's rows as shown. */
function shownRows() {
  return page.$$eval('[data-testid=sweep-table] tbody tr', (rows) => rows.map((tr) => ({
    x: Number(tr.dataset.x), y: Number(tr.dataset.y), fits: tr.dataset.fits === '1',
    days: Number(tr.dataset.days), plan: tr.children[2].textContent,
  })));
}

const planText = (p) => `tp ${p.tp} · cp ${p.cp} · pp ${p.pp} · dp ${p.dp} · b ${p.micro_batch}`;

test('a sweep run in the page is the CLI\'s, point by point', async () => {
  await page.locator('[data-testid=estimate]').waitFor();
  await page.click('[data-testid=sweep-run]');
  await page.locator('[data-testid=sweep-table] tbody tr').first().waitFor({ state: 'attached' });
  const rows = await shownRows();
  const cli = cliSweep(sweepDocument(INPUTS, [['tensor_tflops', SWEEP_AXES.tensor_tflops.values],
    ['memory_gib', SWEEP_AXES.memory_gib.values]]));
  assert.equal(rows.length, 9);
  cli.points.forEach((p, i) => {
    assert.deepEqual([rows[i].x, rows[i].y, rows[i].fits], [p.at.tensor_tflops, p.at.memory_gib, p.fits]);
    if (p.fits) {
      assert.equal(rows[i].days, p.time_to_train_days);
      assert.equal(rows[i].plan, planText(p.plan));
    }
  });
  const drawn = await page.locator('[data-testid=sweep-chart] svg g[aria-label=cell] rect').count();
  assert.ok(drawn >= 9, `${drawn} cells drawn`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator('[data-testid=sweep]').screenshot({ path: join(SCREENSHOTS, 'sweep.png') });
});

test('a merged CLI sweep of three axes loads, the third held at a chosen value', async () => {
  const doc = { ...sweepDocument(INPUTS, [['memory_gib', '80,192']]),
    sweep: { memory_gib: [80, 192], gpus_per_node: [8, 64], fast_gb_per_s: [450, 900] } };
  const shards = [0, 1].map((i) => cliSweep(doc, '--shard', `${i}/2`));
  const dir = mkdtempSync(join(tmpdir(), 'trainplan-sweep-'));
  shards.forEach((s, i) => writeFileSync(join(dir, `shard-${i}.json`), JSON.stringify(s)));
  const { execFileSync } = await import('node:child_process');
  const merged = execFileSync(join(ROOT, 'build', 'trainplan'), ['sweep', '--merge',
    join(dir, 'shard-1.json'), join(dir, 'shard-0.json')]).toString();
  writeFileSync(join(dir, 'study.json'), merged);
  await page.setInputFiles('[data-testid=sweep-file]', join(dir, 'study.json'));
  await page.locator('#sweep-hold-fast_gb_per_s').waitFor();
  await page.selectOption('#sweep-hold-fast_gb_per_s', '900');
  await page.waitForFunction(() => document.querySelector('[data-testid=sweep-source]')?.textContent.includes('study.json'));
  const rows = await shownRows();
  const whole = cliSweep(doc).points.filter((p) => p.at.fast_gb_per_s === 900);
  assert.equal(rows.length, 4);
  whole.forEach((p, i) => {
    assert.deepEqual([rows[i].x, rows[i].y], [p.at.memory_gib, p.at.gpus_per_node]);
    if (p.fits) assert.equal(rows[i].days, p.time_to_train_days);
  });
});

test('a hostile sweep file is refused with a reason and runs nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'trainplan-sweep-'));
  const hostile = join(dir, 'hostile.json');
  writeFileSync(hostile, JSON.stringify({ sweep: { '<img src=x onerror=window.__pwned=1>': [1] }, points: [{}] }));
  await page.setInputFiles('[data-testid=sweep-file]', hostile);
  const error = await page.locator('[data-testid=sweep-error]').textContent();
  assert.match(error, /hostile\.json: unknown sweep axes/);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.locator('img[src=x]').count(), 0);
});

test('no errors in the page console', () => {
  assert.deepEqual(pageErrors, []);
});
