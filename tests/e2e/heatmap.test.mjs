// The heatmap in a real Chromium: every cell of tp × pp (and of another
// pair once the axes change) is the CLI's estimate for the form's inputs
// with those two values, cells the core refuses say why, and the cells that
// do not fit are those over the memory limit of the search (Memory limit,
// 80% unless changed), the same limit the banner shows. Saves a screenshot.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cliTryEstimate } from '../helpers.mjs';
import { defaultInputs, toConfig } from '../../web/src/fields.js';
import { gridInputs } from '../../web/src/components/Heatmap.js';
import { hashOf, openSiteAt } from './browser.mjs';

const SCREENSHOTS = join(ROOT, 'tests', 'e2e', 'screenshots');
const INPUTS = { ...defaultInputs(), model: 'llama-3.1-70b', gpus: '64', tp: '8', pp: '4', sgpus: '' };
let opened, page, pageErrors;

before(async () => {
  opened = await openSiteAt({ width: 1200, height: 1400 }, hashOf(INPUTS), '[data-testid=heatmap-table] tbody tr');
  ({ page, errors: pageErrors } = opened);
});

after(async () => {
  await opened?.close();
});

/** The heatmap table's cells as shown. */
function shownCells() {
  return page.$$eval('[data-testid=heatmap-table] tbody tr', (rows) => rows.map((tr) => ({
    x: Number(tr.dataset.x), y: Number(tr.dataset.y), ok: tr.dataset.ok === '1',
    tokens: Number(tr.dataset.tokens), peak: Number(tr.dataset.peak), fits: tr.lastElementChild.textContent,
  })));
}

/** Each cell against `trainplan estimate` for the same inputs, fitting
 * when its peak is at most `limit` of the GPU's memory. */
function assertCellsMatchCli(cells, xKey, yKey, limit = 0.8, inputs = INPUTS) {
  const grid = gridInputs(inputs, xKey, yKey);
  assert.equal(cells.length, grid.length);
  let valid = 0;
  cells.forEach((cell, i) => {
    assert.deepEqual([cell.x, cell.y], [grid[i].x, grid[i].y]);
    const cli = cliTryEstimate(toConfig(grid[i].inputs));
    assert.equal(cell.ok, cli.ok, `${xKey} ${cell.x} ${yKey} ${cell.y}`);
    if (!cli.ok) {
      assert.equal(cell.fits, cli.error); // the core's own words, path first
      return;
    }
    valid += 1;
    assert.equal(cell.tokens, cli.result.throughput.tokens_per_s_per_gpu);
    assert.equal(cell.peak, cli.result.memory.peak_bytes);
    const { peak_bytes: peak, capacity_bytes: capacity } = cli.result.memory;
    assert.equal(cell.fits, peak <= limit * capacity ? 'yes' : 'no', `${xKey} ${cell.x} ${yKey} ${cell.y}`);
  });
  return valid;
}

test('tp × pp cells are the CLI\'s estimates, with the refused ones explained', async () => {
  const cells = await shownCells();
  assert.equal(cells.length, 7 * 7); // 1..64 on both axes
  const valid = assertCellsMatchCli(cells, 'tp', 'pp');
  assert.ok(valid >= 10 && valid < cells.length, `${valid} valid cells`);
  assert.ok(cells.some((c) => c.ok && c.fits === 'no'), 'some plans run out of memory');
  const drawn = await page.locator('[data-testid=heatmap-chart] svg g[aria-label=cell] rect').count();
  assert.ok(drawn >= cells.length, `${drawn} cells drawn`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.locator('[data-testid=heatmap]').screenshot({ path: join(SCREENSHOTS, 'heatmap.png') });
});

test('other axes and colouring by memory redraw from the core', async () => {
  await page.selectOption('#heatmap-x', 'mbs');
  await page.selectOption('#heatmap-y', 'cp');
  await page.selectOption('#heatmap-metric', 'memory');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=heatmap-table] thead th')]
    .slice(0, 2).map((th) => th.textContent).join(' ') === 'mbs cp');
  const cells = await shownCells();
  assert.equal(cells.length, 5 * 6); // b 1..16, cp 1..32
  assertCellsMatchCli(cells, 'mbs', 'cp');
});

test('the cells, the banner and the search share one memory limit', async () => {
  const inputs = { ...INPUTS, smem: '60' };
  await page.fill('#field-smem', '60');
  await page.locator('[data-testid=heatmap-limit]', { hasText: '60%' }).waitFor();
  await page.locator('[data-testid=memory-limit]', { hasText: '60%' }).waitFor();
  const cells = await shownCells();
  assertCellsMatchCli(cells, 'mbs', 'cp', 0.6, inputs);
  // a cell between 60% and 80%: it fitted before and does not now
  const between = cells.filter((c) => c.ok && c.fits === 'no').map((c) => cliTryEstimate(toConfig(gridInputs(inputs, 'mbs', 'cp')
    .find((g) => g.x === c.x && g.y === c.y).inputs)).result.memory).filter((m) => m.peak_bytes <= 0.8 * m.capacity_bytes);
  assert.ok(between.length > 0, 'some cells fit under 80% but not under 60%');
  const cli = cliTryEstimate(toConfig(inputs)).result.memory;
  assert.equal(await page.locator('[data-testid=zone]').getAttribute('data-fits'), cli.peak_bytes <= 0.6 * cli.capacity_bytes ? '1' : '0');
  await page.fill('#field-smem', '80');
  await page.locator('[data-testid=memory-limit]', { hasText: '80%' }).waitFor();
});

test('no errors in the page console', () => {
  assert.deepEqual(pageErrors, []);
});
