// The page's sweep (web/src/sweep.js): the document it runs is the CLI's
// input, a `trainplan sweep` output reads back with every point, and a
// hostile or broken file is refused with a reason, never half read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliSweep } from '../helpers.mjs';
import { defaultInputs } from '../../web/src/fields.js';
import { checkSweep, readSweep, sweepCells, sweepDocument } from '../../web/src/sweep.js';

const INPUTS = { ...defaultInputs(), model: 'gpt3-175b', cluster: 'lbnl-b200', gpu: 'b200-lbnl', gpus: '512',
  seq: '2048', gbs: '1024', sgpus: '' };

test('the form\'s sweep runs in the CLI and reads back point by point', () => {
  const doc = sweepDocument(INPUTS, [['tensor_tflops', '990,2500'], ['memory_gib', '40,80,192']]);
  assert.deepEqual(doc.sweep, { tensor_tflops: [990, 2500], memory_gib: [40, 80, 192] });
  assert.equal(doc.search.top, 1);
  assert.equal(doc.search.gpus, undefined); // no scaling list at every point
  const out = cliSweep(doc);
  const { sweep, error } = readSweep(JSON.stringify(out));
  assert.equal(error, undefined);
  assert.deepEqual(sweep.axes, ['tensor_tflops', 'memory_gib']);
  assert.equal(sweep.gpus, 512);
  const cells = sweepCells(sweep, 'memory_gib', 'tensor_tflops', {});
  assert.equal(cells.length, 6);
  cells.forEach((c, i) => {
    const p = out.points[i];
    assert.deepEqual([c.y, c.x, c.fits], [p.at.tensor_tflops, p.at.memory_gib, p.fits]);
    if (p.fits) {
      assert.equal(c.time_to_train_days, p.time_to_train_days);
      assert.equal(c.plan.tp, p.plan.tp);
    }
  });
  // GPT3-175B fits 512 GPUs even at 40 GiB, and more capacity never makes a
  // row's best plan slower (the search at 192 GiB may take any plan that
  // fits in 40)
  assert.ok(cells.every((c) => c.fits));
  for (const tf of [990, 2500]) {
    const row = cells.filter((c) => c.y === tf).sort((a, b) => a.x - b.x);
    assert.equal(row.length, 3);
    for (let i = 1; i < row.length; i++) assert.ok(row[i].time_to_train_days <= row[i - 1].time_to_train_days);
  }
});

test('a third axis is held at a chosen value', () => {
  const out = cliSweep({ ...sweepDocument(INPUTS, [['tensor_tflops', '990,2500'], ['memory_gib', '80,192']]),
    sweep: { tensor_tflops: [990, 2500], memory_gib: [80, 192], gpus_per_node: [8, 64] } });
  const { sweep } = readSweep(JSON.stringify(out));
  const cells = sweepCells(sweep, 'tensor_tflops', 'memory_gib', { gpus_per_node: 64 });
  assert.equal(cells.length, 4);
  assert.ok(cells.every((c) => c.at.gpus_per_node === 64));
});

test('a file from before the units were named reads its old axis names', () => {
  const doc = cliSweep(sweepDocument(INPUTS, [['hbm_gb_per_s', '3350,4800']]));
  const old = JSON.parse(JSON.stringify(doc).replaceAll('hbm_gb_per_s', 'hbm_gbps'));
  const read = checkSweep(old);
  assert.deepEqual(read.sweep.axes, ['hbm_gb_per_s']);
  assert.deepEqual(read.sweep.points.map((p) => p.at.hbm_gb_per_s), [3350, 4800]);
});

test('broken, partial or hostile files are refused with a reason', () => {
  const good = cliSweep(sweepDocument(INPUTS, [['tensor_tflops', '990'], ['memory_gib', '80,192']]));
  const text = (doc) => JSON.stringify(doc);
  const refused = [
    ['{not json', /not JSON/],
    [text({ points: [] }), /not a sweep output/],
    [text({ ...good, shard: { index: 1, count: 3 } }), /merge the shards first/],
    [text({ ...good, sweep: { warp_drive: [1] } }), /unknown sweep axes: warp_drive/],
    [text({ ...good, sweep: { memory_gib: ['<img src=x onerror=alert(1)>'] } }), /sweep.memory_gib: must be/],
    [text({ ...good, points: good.points.slice(1) }), /the grid has 2 points and the file 1/],
    [text({ ...good, points: [good.points[0], { ...good.points[1], at: {} }] }), /points\[1\]/],
    [text({ ...good, points: good.points.map((p) => ({ ...p, fits: true, plan: { tp: 'x' } })) }), /points\[0\]/],
    // an axis named after Object.prototype's members is no axis
    [text({ ...good, sweep: { toString: [1] } }), /unknown sweep axes: toString/],
    [text({ ...good, sweep: { hbm_gbps: [1], hbm_gb_per_s: [2] } }), /old name and its new one/],
  ];
  for (const [input, reason] of refused) {
    const read = readSweep(input);
    assert.equal(read.sweep, undefined);
    assert.match(read.error, reason);
  }
});
