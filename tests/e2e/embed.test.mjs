// The embed in a real Chromium, as a docs page would hold it: the page's
// own embed code in an iframe, in a column of 600 px (and 320 and 900 px).
// The first screen shows the figures, the inputs are folded below them, and
// the iframe is resized to its content by the height the embed posts
// ({type: 'trainplan-resize', height}). Saves screenshots.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cliEstimate } from '../helpers.mjs';
import { defaultInputs, toConfig } from '../../web/src/fields.js';
import { embedCode } from '../../web/src/page.js';
import { hashOf, openSite } from './browser.mjs';

const SCREENSHOTS = join(ROOT, 'tests', 'e2e', 'screenshots');
const INPUTS = { model: 'llama-3.1-70b', gpus: '64', tp: '8', pp: '4' };
let opened;

before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  opened = await openSite({ width: 600, height: 800 });
});

after(async () => {
  await opened?.close();
});

/** A docs page `width` px wide holding the embed under a heading, with the
 * resize listener the README's embed line describes. */
async function docsPage(width, locked = false) {
  const host = await opened.newPage({ viewport: { width, height: 800 } });
  const errors = [];
  host.on('pageerror', (e) => errors.push(String(e)));
  const code = embedCode(opened.url.replace(/\/$/, '/'), hashOf(INPUTS), locked);
  await host.setContent(`<!doctype html><title>docs</title><style>body{margin:0 auto;max-width:${width}px}</style>
    <h1>Our 70B plan</h1>${code}
    <script>
      addEventListener('message', (e) => {
        if (e.data?.type === 'trainplan-resize') document.querySelector('iframe').style.height = e.data.height + 'px';
      });
    </script>`);
  const frame = host.frameLocator('iframe');
  await frame.locator('[data-testid=mfu]').waitFor();
  return { host, frame, errors };
}

test('at 600 px the first screen shows the figures, the CLI\'s, with the inputs folded', async () => {
  const { host, frame, errors } = await docsPage(600);
  const cli = cliEstimate(toConfig({ ...defaultInputs(), ...INPUTS }));
  assert.equal(Number(await frame.locator('[data-testid=mfu]').getAttribute('data-value')), cli.throughput.mfu);
  assert.match(await frame.locator('[data-testid=mfu]').textContent(), /^\d+\.\d%$/);
  // the figure's box in the docs page's first screen, nothing scrolled
  const box = await frame.locator('[data-testid=mfu]').boundingBox();
  assert.equal(await host.evaluate(() => scrollY), 0);
  assert.ok(box.y >= 0 && box.y + box.height <= 800 && box.x + box.width <= 600, JSON.stringify(box));
  const peak = await frame.locator('[data-testid=peak-gib]').boundingBox();
  assert.ok(peak.y + peak.height <= 800, 'the fit banner in the first screen too');
  assert.equal(await frame.locator('[data-testid=embed-inputs]').getAttribute('open'), null, 'inputs folded');
  assert.equal(await frame.locator('header, nav, footer, [data-testid=search], [data-testid=heatmap]').count(), 0);
  await frame.locator('[data-testid=memory-chart] svg').first().waitFor();
  await host.screenshot({ path: join(SCREENSHOTS, 'embed-600.png') });
  assert.deepEqual(errors, []);
  await host.close();
});

test('the iframe takes its content\'s height, and follows it when the inputs open', async () => {
  const { host, frame } = await docsPage(600);
  // the embed is on another origin than the docs page: each side is read in its own frame
  const inner = host.frames().find((f) => f !== host.mainFrame());
  const fitted = async () => {
    for (let tries = 0; ; tries++) {
      const height = await host.evaluate(() => document.querySelector('iframe').getBoundingClientRect().height);
      const content = await inner.evaluate(() => ({
        body: Math.ceil(document.body.getBoundingClientRect().height), scroll: document.documentElement.scrollHeight }));
      if (Math.abs(height - content.body) <= 1) return { height, inner: content.scroll };
      assert.ok(tries < 50, `the iframe stays ${height} px for ${content.body} px of content`);
      await host.waitForTimeout(100);
    }
  };
  const folded = await fitted();
  assert.ok(folded.height !== 1000 && folded.height > 400, `${folded.height} px, not the embed code's 1000`);
  assert.ok(folded.inner <= folded.height + 1, 'nothing left to scroll inside the frame');
  await frame.locator('[data-testid=embed-inputs] > summary').click();
  await host.waitForFunction((h) => document.querySelector('iframe').getBoundingClientRect().height > h + 500, folded.height);
  const open = await fitted();
  assert.ok(open.inner <= open.height + 1, 'nothing left to scroll inside the frame');
  await host.close();
});

test('from 320 to 900 px a figure is on the first screen', async () => {
  for (const width of [320, 900]) {
    const { host, frame } = await docsPage(width);
    const box = await frame.locator('[data-testid=mfu]').boundingBox();
    assert.ok(box.y + box.height <= 800 && box.x + box.width <= width, `${width} px: ${JSON.stringify(box)}`);
    const overflow = await frame.locator('body').evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `${width} px: the embed is ${overflow} px wider than its frame`);
    await host.screenshot({ path: join(SCREENSHOTS, `embed-${width}.png`) });
    await host.close();
  }
});
