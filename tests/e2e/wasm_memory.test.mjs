// The WebAssembly core in Chromium, as the site serves it, runs
// 10,000 consecutive estimates (one in ten a config the core refuses, one in
// a hundred a document that is not JSON) and its memory stays flat: the
// bytes its allocator has handed out are the same after the run as after a
// warm-up, and the module's memory never grows. Every good estimate after a
// refusal equals the first one, so an error never poisons the next call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSite } from './browser.mjs';
import { cliEstimate } from '../helpers.mjs';

const CONFIG = {
  model: { preset: 'llama-3.1-70b' },
  system: { cluster: 'dgx-h100', gpus: 1024 },
  parallel: { tp: 8, pp: 4 },
};
const BAD = { ...CONFIG, parallel: { tp: 3 } };

test('10,000 estimates in Chromium leave the core\'s memory flat, and errors do not poison the next call', async () => {
  const site = await openSite({ width: 1280, height: 800 });
  try {
    const { page } = site;
    await page.goto(site.url);
    await page.addScriptTag({ url: 'wasm/trainplan-core.js' });
    await page.addScriptTag({ url: 'wasm/trainplan.js' });
    const report = await page.evaluate(async ({ config, bad }) => {
      const tp = await window.Trainplan.load(window.createTrainplan, { locateFile: (f) => `wasm/${f}` });
      const first = JSON.stringify(tp.estimate(config));
      const run = (calls) => {
        let good = 0, refused = 0, differing = 0, unreadable = 0;
        for (let i = 0; i < calls; i++) {
          try {
            if (i % 100 === 99) tp.estimate('{"model": {"preset": ');
            else if (i % 10 === 9) tp.estimate(bad);
            else {
              if (JSON.stringify(tp.estimate(config)) !== first) differing++;
              good++;
              continue;
            }
          } catch (e) {
            if (e.name !== 'TrainplanError' || !e.reason) throw e;
            if (e.status === 'parse') unreadable++; else refused++;
          }
        }
        return { good, refused, unreadable, differing };
      };
      run(100); // warm-up: any one-time allocation happens here
      const before = tp.memory();
      const counts = run(10000);
      const after = tp.memory();
      return { first: JSON.parse(first), counts, before, after };
    }, { config: CONFIG, bad: BAD });
    console.log('wasm memory:', report.before, '->', report.after, report.counts);
    assert.deepEqual(report.counts, { good: 9000, refused: 900, unreadable: 100, differing: 0 });
    assert.equal(report.after.inUseBytes, report.before.inUseBytes, 'allocator bytes in use changed');
    assert.equal(report.after.heapBytes, report.before.heapBytes, 'the module\'s memory grew');
    // and the figure it kept returning is the CLI's
    const cli = cliEstimate(CONFIG);
    assert.equal(report.first.time.step_s, cli.time.step_s);
    assert.equal(report.first.memory.peak_bytes, cli.memory.peak_bytes);
    assert.deepEqual(site.errors, []);
  } finally {
    await site.close();
  }
});
