// The Calibrate panel in a real Chromium. Four runs of an 8-GPU node,
// "measured" by the CLI's own estimate on a GPU whose matmul and attention
// efficiencies are not the preset's (0.5 and 0.35 for 0.63 and 0.25): one
// read from a torchtitan log excerpt by the core's log reader, three typed
// (the fit takes at most two parameters fewer than the runs: two).
// The fit (in the worker) finds both efficiencies, shows the parameters,
// the runs' errors and the parity chart; Apply makes the page's estimate
// the CLI's on that GPU; the share link restores the calibrated cluster;
// a hostile value in a link is named and left out. Saves a screenshot.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cliEstimate } from '../helpers.mjs';
import { defaultInputs, toConfig } from '../../web/src/fields.js';
import { hashOf, openSiteAt } from './browser.mjs';

const SCREENSHOTS = join(ROOT, 'tests', 'e2e', 'screenshots');
const BASE = { ...defaultInputs(), cluster: 'dgx-h100', gpu: 'h100-80gb', gpus: '8', gpn: '8', sgpus: '' };
const RUNS = [
  { ...BASE, tp: '1', seq: '4096', gbs: '64' },
  { ...BASE, tp: '2', seq: '16384', gbs: '16' },
  { ...BASE, tp: '1', seq: '2048', gbs: '32', recompute: 'selective' },
  { ...BASE, tp: '1', seq: '8192', gbs: '32' },
];
const TRUTH = { matmul_efficiency: 0.5, attention_efficiency: 0.35 };

/** The step time the CLI gives a run's inputs on the GPU of TRUTH, and on
 * the preset's. */
function measure(inputs) {
  const config = toConfig(inputs);
  const preset = cliEstimate(config).time.step_s;
  config.system.gpu = { preset: inputs.gpu, ...TRUTH };
  return { preset, step_s: cliEstimate(config).time.step_s };
}
const MEASURED = RUNS.map(measure);

/** Ten torchtitan step lines (metrics.py's format) of a run at `tps`
 * tokens/s per GPU, the first two slower (warm-up), ANSI colours in. */
function torchtitanLog(tps) {
  const lines = ['[rank0]:[titan] 2026-11-25 10:00:00,000 - root - INFO - Training starts at step 1.'];
  for (let step = 1; step <= 10; step++) {
    const rate = Math.round(step <= 2 ? tps / 3 : tps).toLocaleString('en-US');
    lines.push(`[rank0]:[titan] 2026-11-25 10:00:${10 + step},000 - root - INFO - \u001b[31mstep: ${step}  ` +
      `\u001b[32mloss:  8.10000  \u001b[38;2;180;60;0mgrad_norm:  1.0000  \u001b[38;2;54;234;195mmemory: 61.20GiB(77.30%)  ` +
      `\u001b[34mtps: ${rate}  \u001b[36mtflops: 330.20  \u001b[35mmfu: 33.40%\u001b[39m`);
  }
  return lines.join('\n');
}

let opened, page, pageErrors;

before(async () => {
  opened = await openSiteAt({ width: 1200, height: 1600 }, hashOf(RUNS[0]), '[data-testid=cal-add]');
  ({ page, errors: pageErrors } = opened);
});

after(async () => {
  await opened?.close();
});

/** The page's inputs set to a run's by its link (no reload: the store and
 * its runs stay), once the form shows them. */
async function showRun(inputs) {
  await page.evaluate((hash) => { location.hash = hash; }, hashOf(inputs));
  await page.waitForFunction(([seq, tp]) => document.querySelector('#field-seq')?.value === seq
    && document.querySelector('#field-tp')?.value === tp, [inputs.seq, inputs.tp]);
}

const stepShown = async (view) => Number(await view.locator('[data-testid=step-s]').getAttribute('data-value'));

test('runs from a log and typed fit the GPU they were measured on, and Apply makes it the page\'s', async () => {
  // run 1: read from its log
  await showRun(RUNS[0]);
  await page.click('[data-testid=cal-add]');
  const first = page.locator('[data-testid=cal-run]').nth(0);
  await first.locator('[data-testid=cal-log] summary').click();
  const tps = (64 * 4096) / (8 * MEASURED[0].step_s);
  await first.locator('[data-testid=cal-log-text]').fill(torchtitanLog(tps));
  await first.locator('[data-testid=cal-log-read]').click();
  const summary = await first.locator('[data-testid=cal-log-summary]').textContent();
  assert.match(summary, /torchtitan: "tps", median of 7 step lines after 3 warm-up lines skipped/);
  assert.match(summary, /reserved peak 61.20 GiB/);
  assert.equal(await first.locator('[data-testid=cal-figure]').inputValue(), 'tokens_per_s_per_gpu');
  assert.equal(await first.locator('[data-testid=cal-value]').inputValue(), String(Math.round(tps)));
  assert.equal(await first.locator('[data-testid=cal-memory]').inputValue(), '61.2');
  // the memory is a reserved peak the fit compares too; the step times are the point here
  await first.locator('[data-testid=cal-memory]').fill('');
  // runs 2 to 4: typed
  for (const i of [1, 2, 3]) {
    await showRun(RUNS[i]);
    await page.click('[data-testid=cal-add]');
    await page.locator('[data-testid=cal-run]').nth(i).locator('[data-testid=cal-value]').fill(String(MEASURED[i].step_s));
  }
  assert.equal(await page.locator('[data-testid=cal-run]').count(), 4);

  await page.click('[data-testid=cal-fit]');
  await page.locator('[data-testid=cal-result]').waitFor();
  const fitted = await page.$$eval('[data-testid=cal-params] tbody tr', (rows) => Object.fromEntries(rows.map((tr) =>
    [tr.dataset.param, { fitted: Number(tr.children[2].firstChild.textContent), determined: tr.dataset.determined === '1' }])));
  assert.ok(fitted.matmul_efficiency.determined && Math.abs(fitted.matmul_efficiency.fitted - 0.5) < 0.005,
    JSON.stringify(fitted.matmul_efficiency));
  assert.ok(fitted.attention_efficiency.determined && Math.abs(fitted.attention_efficiency.fitted - 0.35) < 0.005,
    JSON.stringify(fitted.attention_efficiency));
  assert.equal(fitted.slow_efficiency.determined, false); // one node: no run crosses nodes
  const errors = await page.$$eval('[data-testid=cal-errors] tbody tr', (rows) => rows.map((tr) => Number(tr.dataset.errorAfter)));
  assert.equal(errors.length, 4);
  for (const e of errors) assert.ok(Math.abs(e) < 0.002, `error after ${e}`);
  // the parity chart: a dot per run before and after, and the y = x line
  assert.equal(await page.locator('[data-testid=cal-parity] svg [aria-label=dot] circle').count(), 8);
  assert.equal(await page.locator('[data-testid=cal-parity] svg [aria-label=line] path').count(), 1);

  // weighed against trainplan's constants (prior_weight 1) the runs move the
  // matmul efficiency from the preset's 0.63 only part of the way to 0.5;
  // the fit of the runs alone is stale until fitted again
  const matmulShown = () => page.$eval('[data-testid=cal-params] tr[data-param=matmul_efficiency]',
    (tr) => Number(tr.children[2].firstChild.textContent));
  await page.check('[data-testid=cal-prior]');
  await page.locator('[data-testid=cal-result].stale').waitFor();
  await page.click('[data-testid=cal-fit]');
  await page.locator('[data-testid=cal-result]:not(.stale)').waitFor();
  const weighed = await matmulShown();
  assert.ok(weighed > 0.51 && weighed < 0.63, `matmul efficiency ${weighed} with the prior`);
  await page.uncheck('[data-testid=cal-prior]');
  await page.locator('[data-testid=cal-result].stale').waitFor();
  await page.click('[data-testid=cal-fit]');
  await page.locator('[data-testid=cal-result]:not(.stale)').waitFor();
  const alone = await matmulShown();
  assert.ok(Math.abs(alone - 0.5) < 0.005, `matmul efficiency ${alone} from the runs alone`);

  // Apply: the current plan (run 4) now estimates as measured
  const before = await stepShown(page);
  assert.ok(Math.abs(before / MEASURED[3].preset - 1) < 1e-9, `${before} before, CLI ${MEASURED[3].preset}`);
  await page.click('[data-testid=cal-apply]');
  await page.locator('[data-testid=calibrated]').waitFor();
  await page.waitForFunction((b) => Number(document.querySelector('[data-testid=step-s]').dataset.value) !== b, before);
  const afterApply = await stepShown(page);
  assert.ok(Math.abs(afterApply / MEASURED[3].step_s - 1) < 0.002, `${afterApply} after, measured ${MEASURED[3].step_s}`);
  assert.ok(afterApply / before > 1.1, 'the calibrated GPU is slower than the preset');
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator('[data-testid=calibrate]').screenshot({ path: join(SCREENSHOTS, 'calibrate.png') });

  // the share link carries it: a fresh page shows the same step time, calibrated
  const link = await page.evaluate(() => location.href);
  assert.match(link, /[#&]cal=1&cal\.matmul_efficiency=0\.5/);
  const fresh = await opened.newPage();
  await fresh.goto(link);
  await fresh.locator('[data-testid=calibrated]').waitFor();
  assert.equal(await stepShown(fresh), afterApply);
  await fresh.close();

  // Remove goes back to the presets
  await page.click('[data-testid=calibrated-remove]');
  await page.waitForFunction((b) => Number(document.querySelector('[data-testid=step-s]').dataset.value) === b, before);
  assert.deepEqual(pageErrors, []);
});

test('a hostile calibrated value in a link is named and left out', async () => {
  const fresh = await opened.newPage();
  const plain = Object.fromEntries(Object.entries(BASE).filter(([k]) => k !== 'cal' && !k.startsWith('cal.')));
  await fresh.goto(`${opened.url}${hashOf(plain)}&cal=1&cal.matmul_efficiency=7&cal.attention_efficiency=0.35` +
    '&cal.kernel_latency_us=%3Cscript%3E');
  await fresh.locator('[data-testid=calibrated]').waitFor();
  const notice = await fresh.locator('.notice[role=status]').textContent();
  assert.match(notice, /link value for cal\.matmul_efficiency ignored: "7", not a number from 0\.001 to 1/);
  assert.match(notice, /link value for cal\.kernel_latency_us ignored/);
  assert.match(await fresh.locator('[data-testid=calibrated]').textContent(), /attention efficiency 0\.35/);
  const config = toConfig({ ...BASE, cal: '1', 'cal.attention_efficiency': '0.35' });
  assert.ok(Math.abs(await stepShown(fresh) / cliEstimate(config).time.step_s - 1) < 1e-9);
  await fresh.close();
});
