// bench_browser.mjs: the benchmark's searches (cases.json) in Chromium, through
// the page's own engine (web/src/engine.js) and web workers: whole in one
// worker, then split over one worker per core. Prints figures, never fails on
// timing. Needs the built site (ci/build.sh).
//   node tests/bench/bench_browser.mjs
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.mjs';
import { launchChromium } from '../e2e/browser.mjs';
import { serveSite } from '../e2e/server.mjs';

const RUNS = 7;
const cases = JSON.parse(readFileSync(join(ROOT, 'tests', 'bench', 'cases.json'), 'utf8'));
const engineSource = readFileSync(join(ROOT, 'web', 'src', 'engine.js'), 'utf8');

const site = await serveSite();
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(site.url);
  await page.addScriptTag({ type: 'module', content: `${engineSource}\nwindow.createEngine = createEngine;` });
  await page.waitForFunction(() => typeof window.createEngine === 'function');
  const report = await page.evaluate(async ({ searches, runs }) => {
    const cores = navigator.hardwareConcurrency || 1;
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const lines = [`Chromium ${navigator.userAgent.match(/Chrome\/([\d.]+)/)?.[1] ?? '?'}, ${cores} cores`];
    const engines = [[1, window.createEngine('wasm/worker.js', 1)]];
    if (cores > 1) engines.push([cores, window.createEngine('wasm/worker.js', cores)]);
    for (const [, engine] of engines) await engine.presets(); // worker 0's core loaded; the first, uncounted search starts the others
    for (const [name, doc] of Object.entries(searches)) {
      for (const [workers, engine] of engines) {
        const times = [];
        let reply;
        for (let i = 0; i <= runs; i++) { // the first run warms the JIT up and is not counted
          const start = performance.now();
          reply = await engine.search(doc);
          if (i > 0) times.push(performance.now() - start);
        }
        if (!reply.ok) return [`${name}: ${reply.error.path}: ${reply.error.message}`];
        lines.push(`search ${name.padEnd(24)} ${String(workers).padStart(2)} worker${workers > 1 ? 's' : ' '} ` +
          `${median(times).toFixed(1).padStart(6)} ms (median of ${runs}, min ${Math.min(...times).toFixed(1)})  ` +
          `${reply.result.counts.candidates} plans`);
      }
    }
    return lines;
  }, { searches: cases.searches, runs: RUNS });
  console.log(report.join('\n'));
} finally {
  await browser.close();
  await site.close();
}
