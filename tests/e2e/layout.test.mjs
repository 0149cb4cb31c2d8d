// The page leads with the answer, in a real Chromium: at 1440x900 and at a
// phone's 390x844 the headline figure is on the first screen without
// scrolling; on the wide screen the results stay in view while the form
// scrolls, and each section is one click away; a plan over the memory limit
// shows greyed figures beside the fastest plan that fits, whose Apply shows
// the applied result; every chart's labels stay inside it and apart at
// 390, 600 and 1440 px. Saves screenshots.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cliEstimate, cliSearch } from '../helpers.mjs';
import { defaultInputs, toConfig, toSearchDocument } from '../../web/src/fields.js';
import { hashOf, openSiteAt } from './browser.mjs';

const SCREENSHOTS = join(ROOT, 'tests', 'e2e', 'screenshots');
let opened, page, pageErrors;

before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  opened = await openSiteAt({ width: 1440, height: 900 }, '');
  ({ page, errors: pageErrors } = opened);
});

after(async () => {
  await opened?.close();
});

/** Whether the element's whole box is inside the viewport as it is scrolled now. */
function inViewport(view, selector) {
  return view.locator(selector).first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  });
}

test('1440x900: the default plan fits, and its headline figure is on the first screen', async () => {
  assert.equal(await page.evaluate(() => scrollY), 0);
  assert.ok(await inViewport(page, '[data-testid=mfu]'), 'MFU on the first screen');
  assert.match(await page.locator('[data-testid=mfu]').textContent(), /^\d+\.\d%$/);
  const cli = cliEstimate(toConfig(defaultInputs()));
  assert.ok(cli.memory.peak_bytes <= 0.8 * cli.memory.capacity_bytes, 'the default plan is under 80% in the CLI');
  assert.equal(await page.locator('[data-testid=zone]').getAttribute('data-fits'), '1');
  assert.equal(await page.locator('[data-testid=memory-limit]').textContent(), '80%');
  await page.locator('[data-testid=time-chart] svg').waitFor();
  assert.ok(await inViewport(page, '[data-testid=memory-chart] svg'), 'the memory chart on the first screen');
  assert.ok(await inViewport(page, '[data-testid=time-chart] svg'), 'the step-time chart on the first screen');
  await page.screenshot({ path: join(SCREENSHOTS, 'wide-1440.png') });
});

test('1440x900: the results stay in view while the form scrolls', async () => {
  await page.locator('#field-tp').scrollIntoViewIfNeeded();
  assert.ok(await page.evaluate(() => scrollY) > 1000, 'the form scrolled well down');
  assert.ok(await inViewport(page, '#field-tp'));
  assert.ok(await inViewport(page, '[data-testid=mfu]'), 'the headline beside tp');
  assert.ok(await inViewport(page, '[data-testid=zone]'), 'the fit banner beside tp');
  await page.screenshot({ path: join(SCREENSHOTS, 'wide-1440-form-scrolled.png') });
});

test('each section is one click away, and the link keeps the inputs in the hash', async () => {
  const labels = await page.locator('[data-testid=nav] a').allTextContents();
  assert.deepEqual(labels, ['Estimate', 'Search', 'What-if', 'Hardware', 'Compare', 'Export', 'Calibrate']);
  const hash = new URL(page.url()).hash;
  for (const [label, target] of [['Search', '#search'], ['What-if', '[data-testid=heatmap]'], ['Hardware', '#sweep'],
    ['Export', '[data-testid=export]'], ['Calibrate', '[data-testid=calibrate]'], ['Compare', '[data-testid=pin]']]) {
    await page.locator('[data-testid=nav] a', { hasText: label }).click();
    // in view: at the top, or as near it as the end of the page allows
    await page.waitForFunction((sel) => {
      const r = document.querySelector(sel)?.getBoundingClientRect();
      return r && r.top >= 0 && r.top < innerHeight - 100;
    }, target);
    assert.equal(new URL(page.url()).hash, hash, `${label} leaves the hash alone`);
  }
  assert.equal(await page.locator('[data-testid=export]').getAttribute('open'), '', 'Export opens its panel');
  // the stage table, below the form, is one click from the results
  await page.locator('[data-testid=nav] a', { hasText: 'Estimate' }).click();
  await page.locator('.more-link a').click();
  await page.waitForFunction(() => {
    const r = document.querySelector('[data-testid=stage-table]').getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight;
  });
  assert.equal(new URL(page.url()).hash, hash);
  await page.locator('[data-testid=nav] a', { hasText: 'Estimate' }).click();
  assert.ok(await inViewport(page, '[data-testid=mfu]'));
});

test('the skip link is the first Tab stop and moves focus to the results', async () => {
  await page.reload();
  await page.locator('[data-testid=mfu]').waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent.trim()), 'Skip to the results');
  const hash = new URL(page.url()).hash;
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'results');
  assert.equal(new URL(page.url()).hash, hash);
});

test('a plan over the limit is greyed beside the fastest plan that fits; Apply shows it', async () => {
  const inputs = { ...defaultInputs(), tp: '1' };
  const cli = cliEstimate(toConfig(inputs));
  assert.ok(cli.memory.peak_bytes > 0.8 * cli.memory.capacity_bytes, 'tp 1 does not fit in the CLI');
  const best = cliSearch(toSearchDocument(inputs)).plans[0];
  await page.evaluate(() => scrollTo(0, 0));
  await page.fill('#field-tp', '1');
  await page.locator('[data-testid=headline][data-fits="0"]').waitFor();
  assert.equal(await page.locator('[data-testid=zone]').getAttribute('data-fits'), '0');
  assert.match(await page.locator('[data-testid=zone]').textContent(), /Does not fit/);
  assert.match(await page.locator('[data-testid=unfit-note]').textContent(), /Does not fit/);
  const colours = await page.$$eval('[data-testid=mfu], [data-testid=zone] strong', (els) => els.map((el) => getComputedStyle(el).color));
  assert.notEqual(colours[0], await page.evaluate(() => getComputedStyle(document.body).color), 'the MFU is greyed');
  const label = page.locator('[data-testid=best-fit-plan]');
  await label.waitFor();
  assert.match(await label.textContent(), new RegExp(`^tp ${best.plan.tp} · cp ${best.plan.cp} · pp ${best.plan.pp} · dp ${best.plan.dp} · b ${best.plan.micro_batch}`));
  await page.screenshot({ path: join(SCREENSHOTS, 'wide-1440-does-not-fit.png') });
  // Apply from the search's table, far down the page: the page returns to the applied result
  await page.locator('[data-testid=plan-table] tbody tr[data-rank="1"] [data-testid=apply]').click();
  await page.locator('[data-testid=headline][data-fits="1"]').waitFor();
  assert.equal(await page.inputValue('#field-tp'), String(best.plan.tp));
  assert.equal(Number(await page.locator('[data-testid=step-s]').getAttribute('data-value')), best.estimate.time.step_s);
  await page.waitForFunction(() => {
    const r = document.querySelector('[data-testid=mfu]').getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight;
  });
  // and the best-fit button applies the same plan in one click
  await page.fill('#field-tp', '1');
  await page.locator('[data-testid=best-fit-apply]').click();
  await page.locator('[data-testid=headline][data-fits="1"]').waitFor();
  assert.equal(await page.inputValue('#field-tp'), String(best.plan.tp));
});

test('the plan line counts in words that agree with their numbers', async () => {
  const line = (await page.locator('[data-testid=plan-line]').textContent()).replace(/\s+/g, ' ');
  assert.match(line, /· dp 4 · 256 micro-batches of 1 sample$/);
});

/** Every chart's text that leaves its SVG or overlaps another text. */
function labelProblems(view) {
  return view.$$eval('figure.chart svg', (svgs) => {
    const problems = [];
    for (const svg of svgs) {
      const frame = svg.getBoundingClientRect();
      if (frame.width === 0) continue;
      const chart = svg.closest('figure.chart').dataset.testid;
      const boxes = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim())
        .map((t) => ({ text: t.textContent, r: t.getBoundingClientRect() }));
      for (const { text, r } of boxes) {
        if (r.left < frame.left - 0.5 || r.right > frame.right + 0.5 || r.top < frame.top - 0.5 || r.bottom > frame.bottom + 0.5)
          problems.push(`${chart}: "${text}" is clipped`);
      }
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i].r, boxes[j].r];
          const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          if (w > 1 && h > 1) problems.push(`${chart}: "${boxes[i].text}" overlaps "${boxes[j].text}"`);
        }
      }
    }
    return problems;
  });
}

test('no chart label is clipped or overlaps another, at 390, 600 and 1440 px', async () => {
  const hash = hashOf({ model: 'llama-3.1-70b', gpus: '64', tp: '8', pp: '4', sgpus: '64,128,256,512,1024,2048,4096' });
  for (const width of [390, 600, 1440]) {
    const view = await opened.newPage({ viewport: { width, height: 900 } });
    await view.goto(opened.url + hash);
    await view.locator('[data-testid=scaling-chart] svg').waitFor();
    await view.locator('[data-testid=heatmap-chart] svg').last().waitFor();
    const charts = await view.$$eval('figure.chart', (figs) => figs.map((f) => f.dataset.testid));
    for (const chart of ['memory-chart', 'time-chart', 'heatmap-chart', 'search-scatter', 'scaling-chart'])
      assert.ok(charts.includes(chart), `${width} px: ${chart} drawn`);
    assert.deepEqual(await labelProblems(view), [], `${width} px`);
    const overflow = await view.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `${width} px: the page is ${overflow} px wider than the screen`);
    // the search's constraints stay inside their columns
    const spill = await view.$$eval('.search-inputs .field', (fields) => fields.filter((f) => {
      const control = f.querySelector('input, select');
      return control && control.getBoundingClientRect().right > f.getBoundingClientRect().right + 0.5;
    }).map((f) => f.querySelector('label').textContent));
    assert.deepEqual(spill, [], `${width} px: constraints wider than their column`);
    // the step-time chart has one unit, on its axis
    const time = await view.locator('[data-testid=time-chart] svg').first().textContent();
    assert.match(time, /Exposed time per optimizer step \((ms|s|min|h)\)/);
    assert.doesNotMatch(time.replace(/\((ms|s|min|h)\)/, ''), /\d (ms|s|min|h)\b/, 'no unit beside a bar');
    await view.screenshot({ path: join(SCREENSHOTS, `charts-${width}.png`), fullPage: true });
    await view.close();
  }
});

test('390x844: the results come first, with a figure on the first screen', async () => {
  const phone = await opened.newPage({ viewport: { width: 390, height: 844 } });
  await phone.goto(opened.url);
  await phone.locator('[data-testid=mfu]').waitFor();
  assert.equal(await phone.evaluate(() => scrollY), 0);
  assert.ok(await inViewport(phone, '[data-testid=mfu]'), 'MFU on the first screen');
  assert.ok(await inViewport(phone, '[data-testid=zone]'), 'the fit banner on the first screen');
  const [results, form] = await Promise.all(['#results', 'form.inputs'].map((s) => phone.locator(s).boundingBox()));
  assert.ok(results.y < form.y, 'the results above the form');
  await phone.screenshot({ path: join(SCREENSHOTS, 'phone-390.png') });
  await phone.close();
});

test('no errors in the page console', () => {
  assert.deepEqual(pageErrors, []);
});
