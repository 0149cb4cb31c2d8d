// The page in a real Chromium: the WebAssembly core runs in its worker, the
// chart and figures appear, an input change updates them to exactly what
// the CLI prints for the same config, bad input is marked at its field, and
// a reload restores the inputs from the URL. Saves a screenshot.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cliEstimate } from '../helpers.mjs';
import { hashOf, openSiteAt } from './browser.mjs';
import { defaultInputs } from '../../web/src/fields.js';

const SCREENSHOTS = join(ROOT, 'tests', 'e2e', 'screenshots');
let opened, page, pageErrors;

before(async () => {
  opened = await openSiteAt({ width: 1200, height: 1100 }, '');
  ({ page, errors: pageErrors } = opened);
});

after(async () => {
  await opened?.close();
});

/** The config the page shows for the CLI, and the CLI's output for it. */
async function shownConfigAndCli() {
  const config = JSON.parse(await page.locator('[data-testid=config-json]').textContent());
  return { config, cli: cliEstimate(config) };
}

/** Every stage row's byte figures as the page renders them. */
async function shownStages() {
  return page.$$eval('[data-testid=stage-table] tbody tr', (rows) => rows.map((row) => ({
    name: row.dataset.stage,
    ...Object.fromEntries([...row.querySelectorAll('td')].map((td) => [td.dataset.item, Number(td.dataset.bytes)])),
    gib: row.querySelector('[data-item=total_bytes]').textContent.trim(),
  })));
}

function assertMatchesCli(stages, cli) {
  assert.equal(stages.length, cli.memory.stages.length);
  stages.forEach((shown, i) => {
    const want = cli.memory.stages[i];
    assert.equal(shown.name, want.name);
    for (const key of ['weights_bytes', 'gradients_bytes', 'optimizer_bytes', 'activations_bytes', 'other_bytes', 'total_bytes'])
      assert.equal(shown[key], want[key], `${want.name} ${key}`);
    assert.equal(shown.gib, (want.total_bytes / 2 ** 30).toFixed(2));
  });
}

test('first result: chart and figures from the WebAssembly core', async () => {
  await page.locator('[data-testid=peak-gib]').waitFor();
  const bars = await page.locator('[data-testid=memory-chart] svg rect').count();
  assert.ok(bars >= 5, `expected stacked bars, found ${bars} rects`);
  const { cli } = await shownConfigAndCli();
  assertMatchesCli(await shownStages(), cli);
  assert.equal(await page.locator('[data-testid=zone]').getAttribute('data-zone'), cli.memory.zone);
});

test('headline figures and the step-time chart are the CLI\'s', async () => {
  const { cli } = await shownConfigAndCli();
  const shown = async (id) => Number(await page.locator(`[data-testid=${id}]`).getAttribute('data-value'));
  assert.equal(await shown('mfu'), cli.throughput.mfu);
  assert.equal(await shown('tokens-per-s'), cli.throughput.tokens_per_s_per_gpu);
  assert.equal(await shown('step-s'), cli.time.step_s);
  assert.equal(await shown('train-days'), cli.throughput.time_to_train_days);
  assert.match(await page.locator('[data-testid=mfu]').textContent(), /^\d+\.\d%$/);
  const chart = await page.locator('[data-testid=time-chart]').textContent();
  for (const label of ['Compute', 'Data parallel', 'Pipeline bubble', 'Host overhead', 'Exposed time per optimizer step'])
    assert.ok(chart.includes(label), `step-time chart shows ${label}`);
  assert.equal(await page.locator('[data-testid=time-chart] svg rect').count(), 8, 'one bar per part of the step');
});

test('picking a cluster fills in its GPU and node size and prices the run', async () => {
  await page.selectOption('#field-cluster', 'tsubame4');
  assert.equal(await page.inputValue('#field-gpu'), 'h100-94gb');
  assert.equal(await page.inputValue('#field-gpn'), '4');
  await page.fill('#field-price', '2.5');
  const trainDetail = page.locator('.headline-figure', { has: page.locator('[data-testid=train-days]') })
    .locator('.detail');
  await trainDetail.filter({ hasText: '$' }).waitFor();
  const { config, cli } = await shownConfigAndCli();
  assert.equal(config.system.network.name, 'tsubame4');
  assert.equal(config.system.gpus_per_node, 4);
  const priced = cli.throughput.gpu_hours * 2.5;
  assert.ok(Math.abs(cli.throughput.cost - priced) <= 1e-12 * priced, `cost ${cli.throughput.cost} is GPU-hours × 2.5`);
  assert.ok((await trainDetail.textContent()).includes('$' + Math.round(cli.throughput.cost).toLocaleString('en-US')));
  await page.selectOption('#field-cluster', 'none');
  await page.selectOption('#field-gpu', 'h100-80gb');
  await page.fill('#field-gpn', '8');
  await page.fill('#field-price', '0');
  await trainDetail.filter({ hasText: '$' }).waitFor({ state: 'detached' });
});

test('changing tp and pp updates the chart and numbers to the CLI values', async () => {
  await page.fill('#field-tp', '2');
  await page.fill('#field-pp', '4');
  await page.locator('[data-testid=dp]', { hasText: /^1$/ }).waitFor();
  await page.locator('[data-testid=stage-table] tr[data-stage=middle]').waitFor();
  const { config, cli } = await shownConfigAndCli();
  assert.equal(config.parallel.tp, 2);
  assert.equal(config.parallel.pp, 4);
  assertMatchesCli(await shownStages(), cli);
  const ticks = await page.locator('[data-testid=memory-chart]').textContent();
  for (const stage of ['first', 'middle', 'last']) assert.ok(ticks.includes(stage), `x axis shows ${stage}`);
  assert.ok(ticks.includes('limit 80%') && ticks.includes('capacity'), 'capacity and 80% limit lines are labelled');
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, 'memory.png'), fullPage: true });
});

test('an invalid value is marked at its field with the core\'s message', async () => {
  await page.fill('#field-tp', '3');
  const error = page.locator('[data-testid=error]');
  await error.waitFor();
  assert.equal((await error.textContent()).trim(), 'parallel.tp: 3 does not divide model.heads=32');
  assert.equal(await page.locator('#field-tp').getAttribute('aria-invalid'), 'true');
  await page.fill('#field-tp', '2');
  await error.waitFor({ state: 'detached' });
  assert.equal(await page.locator('#field-tp').getAttribute('aria-invalid'), 'false');
});

test('ranks per node reach the core, and a block that does not fill a node is marked', async () => {
  // tp 2 and pp 4 on one node of 8: the two pipeline neighbours of each stage share it
  await page.fill('#field-place', '2,1,1,4');
  // the estimate of the new placement is in (not the text "gpus_per_node", always there)
  await page.waitForFunction(() => JSON.parse(document.querySelector('[data-testid=config-json]')?.textContent || '{}')
    .parallel?.per_node !== undefined);
  const { config, cli } = await shownConfigAndCli();
  assert.deepEqual(config.parallel.per_node, { tp: 2, cp: 1, dp: 1, pp: 4 });
  assert.deepEqual(cli.plan.per_node, { tp: 2, cp: 1, dp: 1, pp: 4 });
  const step = Number(await page.locator('[data-testid=step-s]').getAttribute('data-value'));
  assert.ok(Math.abs(step - cli.time.step_s) <= 1e-12 * cli.time.step_s);
  await page.fill('#field-place', '2,1,1,2');
  const error = page.locator('[data-testid=error]');
  await error.waitFor();
  assert.match(await error.textContent(), /parallel\.per_node: the ranks per node multiply to 4, not to the 8 GPUs of a node/);
  assert.equal(await page.locator('#field-place').getAttribute('aria-invalid'), 'true');
  await page.fill('#field-place', '');
  await error.waitFor({ state: 'detached' });
});

test('a reload restores the inputs from the URL', async () => {
  await page.selectOption('#field-gpu', 'a100-40gb');
  // 97% of the 40 GB: above the 80% rule, below the capacity
  await page.locator('[data-testid=zone][data-zone=yellow]').waitFor();
  const hash = new URL(page.url()).hash;
  assert.doesNotMatch(hash, /tp=/); // tp 2 is the default: the link leaves it out
  assert.match(hash, /gpu=a100-40gb/);
  await page.reload();
  await page.locator('[data-testid=peak-gib]').waitFor();
  assert.equal(await page.inputValue('#field-tp'), '2');
  assert.equal(await page.inputValue('#field-pp'), '4');
  assert.equal(await page.inputValue('#field-gpu'), 'a100-40gb');
  const { config, cli } = await shownConfigAndCli();
  assert.equal(config.system.gpu.name, 'a100-40gb');
  assertMatchesCli(await shownStages(), cli);
});

test('a hostile hash is refused without running it as markup', async () => {
  const fresh = await opened.newPage();
  const dialogs = [];
  fresh.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  await fresh.goto(opened.url + '#v=1&model=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&tp=%3Cb%3E');
  await fresh.locator('[data-testid=peak-gib]').waitFor();
  assert.equal(await fresh.locator('img[src=x]').count(), 0);
  assert.match(await fresh.locator('.notice').textContent(), /value for model ignored.*value for tp ignored/);
  assert.equal(await fresh.inputValue('#field-model'), 'llama-3.1-8b');
  assert.equal(await fresh.inputValue('#field-tp'), defaultInputs().tp); // left at its default
  // the page rewrites the link to the values it actually uses
  assert.doesNotMatch(new URL(fresh.url()).hash, /%3C|</);
  assert.deepEqual(dialogs, []);
  await fresh.close();
});

test('sharding, recompute and precision controls reach the core and show the line items', async () => {
  await page.selectOption('#field-gpu', 'h100-80gb');
  await page.fill('#field-gpus', '32'); // tp 2 x pp 4: dp 4, so full shard splits over 4
  await page.selectOption('#field-sharding', 'fsdp_full_shard');
  await page.selectOption('#field-recompute', 'full');
  await page.selectOption('#field-opt', 'adam8bit');
  await page.locator('[data-testid=bytes-per-param]', { hasText: 'fsdp_full_shard' }).waitFor();
  await page.locator('[data-testid=dp]', { hasText: /^4$/ }).waitFor();
  // the last change shown: the estimate may wait behind a search part
  await page.locator('[data-testid=config-json]', { hasText: 'adam8bit' }).waitFor({ state: 'attached' });
  const { config, cli } = await shownConfigAndCli();
  assert.equal(cli.plan.shard_factors.weights, 4);
  assert.equal(config.parallel.sharding, 'fsdp_full_shard');
  assert.equal(config.parallel.zero, undefined, 'zero is not sent with FSDP');
  assert.equal(config.training.recompute, 'full');
  assert.equal(config.training.optimizer, 'adam8bit');
  assertMatchesCli(await shownStages(), cli);
  assert.ok(await page.locator('#field-zero').evaluate((el) => el.closest('.field').classList.contains('inactive')));
  // every line of "other" is the CLI's figure, stage by stage
  const rows = await page.$$eval('[data-testid=other-table] tbody tr', (trs) => trs.map((tr) => ({
    key: tr.dataset.other, bytes: [...tr.querySelectorAll('td[data-bytes]')].map((td) => Number(td.dataset.bytes)) })));
  assert.equal(rows.length, 7);
  for (const { key, bytes } of rows)
    assert.deepEqual(bytes, cli.memory.stages.map((s) => s.other[key]), key);
  const gathered = rows.find((r) => r.key === 'gathered_params_bytes');
  assert.ok(gathered.bytes.every((b) => b > 0), 'full shard gathers weights on every stage');
  await page.screenshot({ path: join(SCREENSHOTS, 'line-items.png'), fullPage: true });
});

test('a pasted Hugging Face config.json fills the model fields, and the core counts its parameters', async () => {
  const view = await opened.newPage();
  await view.goto(opened.url + hashOf({ ...defaultInputs(), model: 'llama-3.1-70b' }));
  await view.locator('[data-testid=peak-gib]').waitFor();
  await view.locator('[data-testid=model-import] summary').click();
  await view.fill('#hf-config', readFileSync(join(ROOT, 'tests', 'web', 'fixtures', 'llama-3.1-8b.config.json'), 'utf8'));
  await view.locator('[data-testid=hf-import]').click();
  await view.locator('[data-testid=hf-report]').waitFor();
  for (const [id, want] of [['layers', '32'], ['hidden', '4096'], ['heads', '32'], ['kvh', '8'], ['ffn', '14336'], ['vocab', '128256']]) {
    assert.equal(await view.inputValue(`#field-${id}`), want, id);
  }
  assert.equal(await view.inputValue('#field-arch'), 'llama');
  await view.locator('[data-testid=config-json]', { hasText: '"ffn_hidden": 14336' }).waitFor({ state: 'attached' });
  const config = JSON.parse(await view.locator('[data-testid=config-json]').textContent());
  const cli = cliEstimate(config);
  assert.equal(cli.params.total, 8030261248);
  assert.match(await view.locator('.plan').first().textContent(), /^8\.03 B parameters/);
  // the imported sizes travel in the link
  assert.match(new URL(view.url()).hash, /&layers=32&hidden=4096&heads=32&kvh=8&hd=0&win=0&gevery=0&yarn=false&ffn=14336&vocab=128256&/);
  // a broken file is refused at the import, and nothing changes
  await view.fill('#hf-config', '{"model_type": "t5"}');
  await view.locator('[data-testid=hf-import]').click();
  assert.match(await view.locator('[data-testid=hf-error]').textContent(), /model_type "t5" is not one trainplan reads/);
  assert.equal(await view.inputValue('#field-ffn'), '14336');
  await view.close();
});

test('a mixture-of-experts model shows its experts as their own memory line and its all-to-all', async () => {
  const view = await opened.newPage();
  await view.goto(opened.url + hashOf({ ...defaultInputs(), model: 'mixtral-8x7b', gpus: '64', seq: '4096', gbs: '256',
    tp: '2', pp: '4', ep: '8', etp: '1', cf: '1.25' }));
  await view.locator('[data-testid=peak-gib]').waitFor();
  const config = JSON.parse(await view.locator('[data-testid=config-json]').textContent());
  assert.deepEqual([config.parallel.ep, config.parallel.etp, config.training.capacity_factor], [8, 1, 1.25]);
  const cli = cliEstimate(config);
  assert.equal(await view.locator('[data-testid=ep]').textContent(), '8');
  const rows = await view.$$eval('[data-testid=stage-table] tbody tr', (trs) => trs.map((row) =>
    Object.fromEntries([...row.querySelectorAll('td')].map((td) => [td.dataset.item, Number(td.dataset.bytes)]))));
  rows.forEach((shown, i) => {
    const want = cli.memory.stages[i];
    const e = want.experts;
    assert.ok(e.params > 0);
    // the experts' states and routed activations on their own line, the rest beside them
    assert.equal(shown.experts_bytes, e.weights_bytes + e.gradients_bytes + e.optimizer_bytes + e.activations_bytes);
    for (const key of ['weights_bytes', 'gradients_bytes', 'optimizer_bytes', 'activations_bytes']) {
      assert.equal(shown[key], want[key] - e[key], key);
    }
    assert.equal(shown.total_bytes, want.total_bytes);
  });
  const legend = await view.locator('[data-testid=memory-chart]').textContent();
  assert.ok(legend.includes('Experts'), 'the chart has an Experts item');
  const time = await view.locator('[data-testid=time-chart]').textContent();
  assert.ok(time.includes('Expert all-to-all') && cli.time.ep_comm_s > 0, 'the step-time chart shows the all-to-all');
  // the expert fields apply; the latent-attention ones do not (Mixtral is gqa)
  assert.doesNotMatch(await view.locator('#field-experts').locator('..').getAttribute('class'), /inactive/);
  assert.match(await view.locator('#field-kvlora').locator('..').getAttribute('class'), /inactive/);
  await view.locator('[data-testid=how-experts_bytes] summary').click();
  assert.match(await view.locator('[data-testid=how-experts_bytes] .formula').textContent(), /P_e × \(weight \+ fp8 copies\)/);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await view.screenshot({ path: join(SCREENSHOTS, 'moe.png'), fullPage: true });
  await view.close();
});

test('numbers expand to their formula, inputs and source', async () => {
  const { cli } = await shownConfigAndCli();
  await page.locator('[data-testid=how-mfu] summary').click();
  const how = page.locator('[data-testid=how-mfu]');
  assert.match(await how.locator('.formula').textContent(), /model FLOPs per step \/ \(step time × GPUs × peak tensor FLOP\/s\)/);
  assert.equal(Number(await how.locator('p strong[data-value]').getAttribute('data-value')), cli.throughput.mfu);
  assert.match(await how.locator('.cite').textContent(), /Narayanan et al. 2021 §5\.1/);
  await page.locator('[data-testid=how-optimizer_bytes] summary').click();
  const stage = cli.memory.stages.find((s) => s.name === cli.memory.peak_stage);
  const optimizer = page.locator('[data-testid=how-optimizer_bytes]');
  assert.equal(Number(await optimizer.locator('p strong[data-value]').getAttribute('data-value')), stage.optimizer_bytes);
  assert.match(await optimizer.locator('.cite').textContent(), /Fujii et al. 2024 eq\. 10/);
  // and each part of the step time, from its per-micro-batch figure
  await page.locator('[data-testid=how-compute_s] summary').click();
  const compute = page.locator('[data-testid=how-compute_s]');
  assert.match(await compute.locator('.formula').textContent(), /m × forward and backward/);
  assert.equal(Number(await compute.locator('p strong[data-value]').getAttribute('data-value')), cli.time.compute_s);
  const listed = await compute.locator('td[data-value]').evaluateAll((tds) => tds.map((td) => Number(td.dataset.value)));
  assert.deepEqual(listed, [cli.plan.micro_batches, cli.time.micro_batch_compute_s]);
});

test('every stage\'s items and lines of Other expand, worked out from the CLI\'s figures', async () => {
  const view = await opened.newPage();
  await view.goto(opened.url + hashOf({ ...defaultInputs(), gpus: '32', tp: '2', pp: '4', recompute: 'selective' }));
  await view.locator('[data-testid=peak-gib]').waitFor();
  const config = JSON.parse(await view.locator('[data-testid=config-json]').textContent());
  const cli = cliEstimate(config);
  assert.equal(cli.memory.stages.length, 3);
  for (const want of cli.memory.stages) {
    await view.locator('[data-testid=how-stage]').selectOption(want.name);
    const acts = view.locator('[data-testid=how-activations_bytes]');
    if ((await acts.getAttribute('open')) === null) await acts.locator('summary').click();
    assert.match(await acts.locator('.formula').textContent(), /n × layer \+ scores/);
    assert.equal(Number(await acts.locator('p strong[data-value]').getAttribute('data-value')), want.activations_bytes);
    const listed = await acts.locator('td[data-value]').evaluateAll((tds) => tds.map((td) => Number(td.dataset.value)));
    const a = want.activation_parts;
    assert.deepEqual(listed, [want.layers_in_flight, a.layer_bytes, a.scores_bytes, a.layer_input_bytes, a.embedding_bytes,
      a.lm_head_bytes]);
    const loss = view.locator('[data-testid=how-other-loss_workspace_bytes]');
    if ((await loss.getAttribute('open')) === null) await loss.locator('summary').click();
    assert.equal(Number(await loss.locator('p strong[data-value]').getAttribute('data-value')), want.other.loss_workspace_bytes);
    assert.equal(want.other.loss_workspace_bytes > 0, want.name === 'last');
  }
  await view.close();
});

test('no errors in the page console', () => {
  assert.deepEqual(pageErrors, []);
});
