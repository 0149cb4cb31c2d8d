// The calibrated cluster as the page carries it (web/src/calibration.js),
// the Calibrate panel's runs (web/src/calruns.js) and its store actions
// (web/src/state.js): a calibrate output applied gives the inputs whose
// config the CLI estimates as the fitted system; the link round-trips it,
// pin included, and names a bad value; the runs document is the one the
// CLI's calibrate takes; a log reader's output fills a run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliCalibrate, cliEstimate } from '../helpers.mjs';
import { defaultInputs, toConfig } from '../../web/src/fields.js';
import { CAL_PARAMS, calText, calibrationInputs, calProblem, noCalibration } from '../../web/src/calibration.js';
import { logSummary, newRun, parityRows, runOfError, runsDocument, withLog } from '../../web/src/calruns.js';
import { decodeHash, encodeHash } from '../../web/src/url.js';
import { initialState, reducer } from '../../web/src/state.js';

const BASE = { ...defaultInputs(), cluster: 'dgx-h100', gpus: '8', gbs: '64', seq: '4096' };

test('fitted values are kept as plain decimals of 6 significant digits', () => {
  assert.equal(calText(0.50000000000007), '0.5');
  assert.equal(calText(30.0300412), '30.03');
  assert.equal(calText(1e-9), '0');
  assert.equal(calText(0), '0');
  assert.equal(calText(NaN), '0');
  for (const p of CAL_PARAMS) assert.ok(p.max > p.min, p.key);
});

test('a fit applied estimates as the CLI does with the fitted system', () => {
  const runs = [
    { ...newRun({ ...BASE, tp: '1' }, 1), value: '4.1' },
    { ...newRun({ ...BASE, tp: '2', seq: '16384', gbs: '16' }, 2), value: '5.2', memory: '40', memoryKind: 'reserved' },
    { ...newRun({ ...BASE, seq: '2048', gbs: '32' }, 3), figure: 'tokens_per_s_per_gpu', value: '7000' },
  ];
  const doc = runsDocument(runs);
  assert.equal(doc.prior_weight, undefined);
  assert.equal(runsDocument(runs, true).prior_weight, 1);
  assert.deepEqual(doc.runs[1].measured, { step_s: 5.2, peak_memory_gib: 40, memory_kind: 'reserved' });
  assert.deepEqual(doc.runs[2].measured, { tokens_per_s_per_gpu: 7000 });
  const output = cliCalibrate(doc);
  const inputs = { ...BASE, ...calibrationInputs(output) };
  assert.equal(inputs.cal, '1');
  const mine = cliEstimate(toConfig(inputs)).config;
  const theirs = cliEstimate({ ...toConfig(BASE), system: { ...output.system, gpus: 8 }, overheads: output.overheads }).config;
  for (const p of CAL_PARAMS) {
    const at = (c) => p.path.split('.').reduce((o, k) => o[k], c);
    assert.ok(Math.abs(at(mine) - at(theirs)) <= 1e-5 * Math.max(1, Math.abs(at(theirs))), p.key);
  }
  assert.equal(mine.system.gpu.tensor_tflops, theirs.system.gpu.tensor_tflops);
  assert.equal(mine.system.network.fast_gb_per_s, theirs.system.network.fast_gb_per_s);
});

test('a run is the inputs without a calibration, and a typed non-number goes to the core as text', () => {
  const run = newRun({ ...BASE, cal: '1', 'cal.matmul_efficiency': '0.5' }, 7);
  assert.equal(run.inputs.cal, '0');
  assert.equal(run.name, 'run 7: llama-3.1-8b tp2 pp1'); // the default plan's tp 2
  assert.equal(toConfig(run.inputs).system.gpu, 'h100-80gb');
  assert.deepEqual(runsDocument([{ ...run, value: '4,1' }]).runs[0].measured, { step_s: '4,1' });
  assert.equal(runOfError({ path: 'runs[2].measured.step_s' }), 2);
  assert.equal(runOfError({ path: 'fit' }), -1);
  assert.equal(runOfError(null), -1);
});

test('a log reader\'s output fills a run and is summed up', () => {
  const read = { trainer: 'torchtitan', figure: 'tokens_per_s_per_gpu', key: 'tps', steps: 10, skipped: 3, used: 7,
    min: 5750, max: 5770, measured: { tokens_per_s_per_gpu: 5762.5, peak_memory_gib: 61.2500001, memory_kind: 'reserved' },
    read: [], memory_key: 'memory', memory_line: { line: 4, text: '' } };
  const run = withLog(newRun(BASE, 1), read);
  assert.deepEqual([run.figure, run.value, run.memory, run.memoryKind], ['tokens_per_s_per_gpu', '5762.5', '61.25', 'reserved']);
  assert.equal(logSummary(read), 'torchtitan: "tps", median of 7 step lines after 3 warm-up lines skipped ' +
    '(5750 to 5770); reserved peak 61.25 GiB from "memory"');
  const bare = { ...read, min: 2, max: 2, used: 1, skipped: 1, memory_key: undefined, measured: { step_s: 2 } };
  assert.equal(logSummary(bare), 'torchtitan: "tps", median of 1 step line after 1 warm-up line skipped; no memory line');
});

test('the parity rows: before and after for each run with a step time, on one extent', () => {
  const { rows, extent } = parityRows({ runs: [
    { name: 'a', measured_step_s: 2, predicted_step_s_before: 1, predicted_step_s_after: 2.1 },
    { measured_memory_gib: 40 },
  ] });
  assert.deepEqual(rows.map((r) => [r.name, r.fit, r.predicted]), [['a', 'before', 1], ['a', 'after', 2.1]]);
  assert.ok(extent[0] < 1 && extent[1] > 2.1);
});

test('the link carries a calibrated cluster, the pin\'s too, and names a bad value', () => {
  const cal = { cal: '1', ...Object.fromEntries(CAL_PARAMS.map((p) => [`cal.${p.key}`, ''])),
    'cal.matmul_efficiency': '0.5', 'cal.kernel_latency_us': '21.5' };
  const inputs = { ...BASE, ...cal };
  const hash = encodeHash(inputs);
  assert.match(hash, /&cal=1&cal\.matmul_efficiency=0\.5&cal\.kernel_latency_us=21\.5&n=7$/);
  assert.deepEqual(decodeHash(hash), { inputs, pinned: null, problems: [] });
  // pinned without the calibration, and with another value
  for (const pinned of [{ ...BASE, ...noCalibration() }, { ...inputs, 'cal.matmul_efficiency': '0.6' }]) {
    const both = decodeHash(encodeHash(inputs, pinned));
    assert.deepEqual(both.pinned, pinned);
    assert.deepEqual(both.inputs, inputs);
  }
  // pinned calibrated, current not
  const back = decodeHash(encodeHash(BASE, inputs));
  assert.deepEqual([back.inputs.cal, back.pinned.cal, back.pinned['cal.matmul_efficiency']], ['0', '1', '0.5']);
  // a version 1 link (no count at its end) with three values added by hand
  const bad = decodeHash(`${hash.replace('v=2', 'v=1').replace(/&n=7$/, '')}&cal.attention_efficiency=1.5` +
    '&cal.fast_efficiency=-1&cal.slow_efficiency=1e-3');
  assert.deepEqual(bad.problems, [
    'link value for cal.attention_efficiency ignored: "1.5", not a number from 0.001 to 1',
    'link value for cal.fast_efficiency ignored: "-1", not a plain decimal number (from 0.001 to 1)',
    'link value for cal.slow_efficiency ignored: "1e-3", not a plain decimal number (from 0.001 to 1)',
  ]);
  assert.equal(bad.inputs['cal.attention_efficiency'], '');
  assert.equal(decodeHash('#v=1&cal=yes').problems[0], 'link value for cal ignored: "yes" is not 0 or 1');
  assert.equal(calProblem(CAL_PARAMS[0], '<b>'), 'not a plain decimal number (from 0.001 to 1)');
  assert.equal(calProblem(CAL_PARAMS[0], '0.72'), null);
  // no calibration: nothing in the link, values ignored
  assert.doesNotMatch(encodeHash(BASE), /cal/);
  assert.equal(decodeHash('#v=1&cal=0&cal.matmul_efficiency=0.5').inputs['cal.matmul_efficiency'], '');
});

test('the store: runs added, edited, read from a log, fitted, weighed against the constants, applied; another GPU drops the calibration', () => {
  let state = reducer(initialState(''), { type: 'presets', presets: { clusters: [], models: [], gpus: [] }, version: '' });
  state = reducer(state, { type: 'calAddRun' });
  state = reducer(state, { type: 'calEditRun', index: 0, changes: { value: '4' } });
  assert.equal(state.calibration.runs[0].value, '4');
  state = reducer(state, { type: 'calLogRead', index: 0, reply: { ok: false, error: { path: 'log', message: 'no' } } });
  assert.equal(state.calibration.runs[0].logError.path, 'log');
  state = reducer(state, { type: 'calFitStarted' });
  assert.equal(state.calibration.fitting, true);
  const result = { parameters: CAL_PARAMS.map((p) => ({ name: p.path, fitted: p.key === 'matmul_efficiency' ? 0.5 : p.min })) };
  state = reducer(state, { type: 'calFitted', reply: { ok: true, result } });
  assert.deepEqual([state.calibration.fitting, state.calibration.stale], [false, false]);
  assert.equal(state.calibration.prior, false);
  const weighed = reducer(state, { type: 'calPrior', prior: true }).calibration;
  assert.deepEqual([weighed.prior, weighed.stale], [true, true]); // the fit was of the runs alone
  state = reducer(state, { type: 'calApply' });
  assert.equal(state.inputs['cal.matmul_efficiency'], '0.5');
  state = reducer(state, { type: 'calAddRun' });
  assert.equal(state.calibration.stale, true);
  assert.equal(state.calibration.runs[1].inputs.cal, '0');
  state = reducer(state, { type: 'calRemoveRun', index: 0 });
  assert.equal(state.calibration.runs.length, 1);
  assert.equal(reducer(state, { type: 'setField', key: 'tp', value: '2' }).inputs.cal, '1');
  assert.equal(reducer(state, { type: 'setField', key: 'gpu', value: 'a100-80gb' }).inputs.cal, '0');
  assert.equal(reducer(state, { type: 'setField', key: 'cal', value: '0' }).inputs['cal.matmul_efficiency'], '');
});
