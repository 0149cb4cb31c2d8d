// bench_page.mjs: the page's time and size budgets, measured on the built site
// served locally and driven in Chromium. Prints figures against each budget;
// never fails on timing. Needs the built site (ci/build.sh).
//   first result   navigation start to the memory figure and chart shown
//                  (budget 1 s), cold (fresh browser profile) and warm
//   estimate       an input change (tp) to every chart of the estimate
//                  redrawn: memory, step time, heatmap (budget 100 ms)
//   search         a change the search depends on (global batch) to its
//                  scatter and scaling chart redrawn (budget 1 s)
//   transfer       bytes the first visit fetches, gzip-compressed as a
//                  static host would send them (budget 300 KB)
//   node tests/bench/bench_page.mjs
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../helpers.mjs';
import { launchChromium } from '../e2e/browser.mjs';
import { serveSite } from '../e2e/server.mjs';

const RUNS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const PAGES = {
  'default (8B, 8 GPUs)': '',
  '70B on 1,024 GPUs': '#v=1&model=llama-3.1-70b&gpus=1024&tp=8&pp=4',
};

/** In the page: sets a text input as typing would, then resolves with the
 * milliseconds until every `selectors`' element has been replaced or
 * changed its `attribute`, one frame after (so it has been painted). */
function changeAndWait({ field, value, watch }) {
  return new Promise((resolve) => {
    setTimeout(() => resolve(Infinity), 20000); // never redrawn: reported, not waited for
    const snapshot = () => watch.map(([selector, attribute]) => {
      const el = document.querySelector(selector);
      return attribute ? el?.getAttribute(attribute) : el;
    });
    const before = snapshot();
    const input = document.querySelector(field);
    const start = performance.now();
    const observer = new MutationObserver(() => {
      const now = snapshot();
      if (now.every((v, i) => v !== before[i] && v !== null && v !== undefined)) {
        observer.disconnect();
        requestAnimationFrame(() => resolve(performance.now() - start));
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

const ESTIMATE_WATCH = [['[data-testid=peak-gib]', 'data-bytes'], ['[data-testid=memory-chart] svg', null],
  ['[data-testid=time-chart] svg', null], ['[data-testid=heatmap-chart] svg', null]];
const SEARCH_WATCH = [['[data-testid=search-scatter] svg', null], ['[data-testid=scaling-chart] svg', null]];

const site = await serveSite();
const lines = [];
try {
  for (const [name, hash] of Object.entries(PAGES)) {
    const cold = [], warm = [], estimate = [], search = [];
    let transferred = 0, files = 0;
    for (let run = 0; run < RUNS; run++) {
      const browser = await launchChromium(); // a fresh profile: nothing cached, no service worker yet
      try {
        const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
        // the moment the memory chart is in the page, painted one frame later,
        // recorded in the page itself (Playwright's polling would add its own delay)
        await page.addInitScript(() => {
          new MutationObserver((_, observer) => {
            if (document.querySelector('[data-testid=memory-chart] svg')) {
              observer.disconnect();
              requestAnimationFrame(() => { window.firstResultMs = performance.now(); });
            }
          }).observe(document, { subtree: true, childList: true });
        });
        const fetched = new Set();
        page.on('requestfinished', (r) => fetched.add(new URL(r.url()).pathname));
        for (const [times, label] of [[cold, 'cold'], [warm, 'warm']]) {
          if (label === 'cold') await page.goto(site.url + hash);
          else await page.reload(); // the same page again, from the browser's and the service worker's caches
          await page.waitForFunction(() => window.firstResultMs !== undefined);
          times.push(await page.evaluate(() => window.firstResultMs));
        }
        if (run === 0) {
          for (const path of fetched) {
            const body = readFileSync(join(ROOT, 'public', path.endsWith('/') ? path + 'index.html' : path));
            transferred += gzipSync(body, { level: 9 }).length;
            files += 1;
          }
        }
        await page.locator('[data-testid=heatmap-chart] svg').first().waitFor();
        await page.locator('[data-testid=search-counts]').waitFor();
        for (const tp of ['4', '1', '2']) { // each a change from the one before, and from either page's tp
          estimate.push(await page.evaluate(changeAndWait, { field: '#field-tp', value: tp, watch: ESTIMATE_WATCH }));
        }
        for (const gbs of ['512', '2048']) {
          search.push(await page.evaluate(changeAndWait, { field: '#field-gbs', value: gbs, watch: SEARCH_WATCH }));
        }
      } finally {
        await browser.close();
      }
    }
    const row = (label, xs, budget) => `  ${label.padEnd(34)} ${median(xs).toFixed(0).padStart(5)} ms median, ` +
      `max ${Math.max(...xs).toFixed(0).padStart(5)} (budget ${budget} ms, n=${xs.length})`;
    lines.push(name,
      row('first result, cold', cold, 1000),
      row('first result, warm (cached)', warm, 1000),
      row('estimate change -> every chart', estimate, 100),
      row('search change -> its charts', search, 1000),
      `  ${'transferred on the first visit'.padEnd(34)} ${(transferred / 1024).toFixed(1).padStart(5)} KiB gzip in ${files} files (budget 300 KB)`);
  }
} finally {
  await site.close();
}
console.log(lines.join('\n'));
