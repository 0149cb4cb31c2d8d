// Exports in a real Chromium: the config and estimate files are the CLI's
// input and output for what the page shows; the launch snippets carry the
// plan, the framework profile and, for a plan that does not fit, a warning;
// each chart saves as an SVG with its legend and as a PNG at twice its size;
// the search saves as the CSV of the CLI's plans. Keeps the files as test
// artefacts beside the screenshots.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cliEstimate, cliSearch } from '../helpers.mjs';
import { defaultInputs, toSearchDocument } from '../../web/src/fields.js';
import { searchCsv } from '../../web/src/exports.js';
import { hashOf, openSiteAt } from './browser.mjs';

const ARTEFACTS = join(ROOT, 'tests', 'e2e', 'screenshots');
const INPUTS = { ...defaultInputs(), model: 'llama-3.1-70b', gpus: '64', tp: '8', pp: '4', schedule: 'interleaved',
  recompute: 'full', sgpus: '' };
let opened, page, pageErrors;

before(async () => {
  opened = await openSiteAt({ width: 1200, height: 1100 }, hashOf(INPUTS));
  ({ page, errors: pageErrors } = opened);
  mkdirSync(ARTEFACTS, { recursive: true });
});

after(async () => {
  await opened?.close();
});

/** Clicks `selector` and returns the downloaded file's name and bytes. */
async function downloadOf(selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator(selector).click()]);
  const path = await download.path();
  copyFileSync(path, join(ARTEFACTS, download.suggestedFilename()));
  return { name: download.suggestedFilename(), bytes: readFileSync(path) };
}

test('the config and estimate files are what the CLI reads and prints', async () => {
  await page.locator('[data-testid=export] summary').click();
  const config = await downloadOf('[data-testid=save-config]');
  const estimate = await downloadOf('[data-testid=save-estimate]');
  assert.equal(config.name, 'trainplan-config.json');
  const shownConfig = JSON.parse(await page.locator('[data-testid=config-json]').textContent());
  assert.deepEqual(JSON.parse(config.bytes), shownConfig);
  assert.deepEqual(JSON.parse(estimate.bytes), cliEstimate(JSON.parse(config.bytes)));
});

test('the launch snippets carry the plan shown', async () => {
  const text = () => page.locator('[data-testid=launch-text]').textContent();
  assert.match(await text(), /--tensor-model-parallel-size 8 \\\n {2}--pipeline-model-parallel-size 4/);
  assert.match(await text(), /--num-layers-per-virtual-pipeline-stage 10/); // 80 layers / (4 x 2)
  await page.locator('[data-testid=launch-deepspeed]').click();
  // DeepSpeed reads its config with hjson: // comment lines, then the JSON
  const ds = JSON.parse((await text()).replace(/^\/\/.*\n/gm, ''));
  assert.equal(ds.gradient_accumulation_steps, 512); // 1024 samples / (b 1 x dp 2)
  await page.locator('[data-testid=launch-torchtitan]').click();
  assert.match(await text(), /pipeline_parallel_schedule = "Interleaved1F1B"/);
  assert.match(await text(), /\[activation_checkpoint\]\nmode = "full"/);
  assert.equal(await page.locator('[data-testid=launch-torchtitan]').getAttribute('aria-pressed'), 'true');
});

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test('each chart saves as SVG (legend included) and as PNG', async () => {
  await page.locator('[data-testid=heatmap-chart] svg').last().waitFor();
  for (const chart of ['memory-chart', 'time-chart', 'heatmap-chart']) {
    const svg = await downloadOf(`[data-testid=${chart}] [data-testid=save-svg]`);
    assert.equal(svg.name, `trainplan-${chart}.svg`);
    const text = svg.bytes.toString('utf8');
    assert.match(text, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const [, width, height] = text.match(/^<svg[^>]* width="(\d+)" height="(\d+)"/);
    if (chart === 'memory-chart') {
      for (const item of ['Weights', 'Gradients', 'Optimizer', 'Activations', 'Other']) assert.match(text, new RegExp(`>${item}</text>`));
      assert.match(text, /capacity 79\.6 GiB/);
    }
    if (chart === 'heatmap-chart') {
      assert.match(text, /class="plot-[0-9a-f]+-ramp"/); // the colour legend comes along
      assert.match(text, />OOM</);
    }
    const png = await downloadOf(`[data-testid=${chart}] [data-testid=save-png]`);
    assert.deepEqual(pngSize(png.bytes), { width: 2 * width, height: 2 * height });
  }
});

test('the search saves as the CSV of the CLI\'s plans and Pareto front', async () => {
  await page.locator('[data-testid=plan-table] tbody tr').first().waitFor();
  const csv = await downloadOf('[data-testid=save-csv]');
  assert.equal(csv.name, 'trainplan-search.csv');
  assert.equal(csv.bytes.toString('utf8'), searchCsv(cliSearch(toSearchDocument(INPUTS))));
});

test('the panel names the framework profile, and warns in the text and on the page when the plan does not fit', async () => {
  const profile = await page.locator('[data-testid=export-profile]').textContent();
  assert.match(profile, /Estimated with the megatron-core framework\s+profile/);
  assert.equal(await page.locator('[data-testid=export-warning]').count(), 0);
  assert.equal(await page.locator('[data-testid=export-summary-profile]').textContent(), '(megatron-core profile)');
  await page.locator('[data-testid=launch-megatron]').click();
  assert.match(await page.locator('[data-testid=launch-text]').textContent(),
    /^# trainplan: llama-3\.1-70b on 64 GPUs for Megatron-LM, estimated with the megatron-core framework profile\n/);

  // Mixtral 8x7B with tp 1 and pp 1 on 8 GPUs: each keeps some 7B parameters
  // (the attention whole, an eighth of the experts) with fp32 gradients: over 80 GB
  const over = await opened.newPage({ viewport: { width: 1200, height: 1100 } });
  await over.goto(opened.url + hashOf({ ...INPUTS, model: 'mixtral-8x7b', gpus: '8', tp: '1', pp: '1', ep: '8',
    schedule: '1f1b' }));
  await over.locator('[data-testid=export] summary').click();
  assert.equal(await over.locator('[data-testid=export-summary-profile]').textContent(),
    '(megatron-core profile, plan does not fit)');
  const warning = await over.locator('[data-testid=export-warning]').textContent();
  assert.match(warning, /^WARNING: this plan does not fit: the \w+ pipeline stage needs [\d.]+ GiB of the GPU's 79\.6 GiB/);
  const args = await over.locator('[data-testid=launch-text]').textContent();
  assert.ok(args.split('\n').includes(`# ${warning.replace(/\.$/, '')}`), args);
  assert.match(args, /--num-experts 8 \\\n {2}--moe-router-topk 2/);
  assert.match(args, /--expert-model-parallel-size 8/);
  await over.close();
});

test('no errors in the page console', () => {
  assert.deepEqual(pageErrors, []);
});
