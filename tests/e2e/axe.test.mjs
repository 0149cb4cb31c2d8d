// An automated accessibility check: axe-core (Deque's rules for WCAG 2.1 A
// and AA) over the whole page once its search has shown, at 1440 px in light
// and dark and at a phone's 390 px, a plan that does not fit, and the embed.
// Any serious or critical violation fails, named with the elements at fault.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hashOf, openSite } from './browser.mjs';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let opened;

before(async () => {
  opened = await openSite({ width: 1440, height: 900 });
});

after(async () => {
  await opened?.close();
});

/** axe's serious and critical violations on the page as it is now. */
async function seriousViolations(view) {
  await view.addScriptTag({ content: AXE_SOURCE });
  const violations = await view.evaluate(async () => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(1, 2).join('')}`) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

async function opening(viewport, path, ready, scheme = 'light') {
  const view = await opened.newPage({ viewport, colorScheme: scheme });
  await view.goto(opened.url + path);
  await view.locator(ready).first().waitFor();
  await view.locator('[data-testid=time-chart] svg').first().waitFor();
  return view;
}

for (const scheme of ['light', 'dark']) {
  test(`the full page at 1440 px, ${scheme}: no serious violation`, async () => {
    const view = await opening({ width: 1440, height: 900 }, '', '[data-testid=plan-table] tbody tr', scheme);
    await view.locator('[data-testid=heatmap-chart] svg').last().waitFor();
    assert.deepEqual(await seriousViolations(view), []);
    await view.close();
  });
}

test('a plan that does not fit, on a phone: no serious violation', async () => {
  const view = await opening({ width: 390, height: 844 }, hashOf({ tp: '1' }), '[data-testid=best-fit-apply]');
  assert.deepEqual(await seriousViolations(view), []);
  await view.close();
});

test('the embed, locked, in dark: no serious violation', async () => {
  const view = await opening({ width: 600, height: 800 }, `?embed=1&lock=1${hashOf({ model: 'llama-3.1-70b', gpus: '64', tp: '8', pp: '4' })}`,
    '[data-testid=mfu]', 'dark');
  assert.deepEqual(await seriousViolations(view), []);
  await view.close();
});
