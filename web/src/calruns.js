// calruns.js: the Calibrate panel's runs and what it makes of them. A run
// is the page's inputs when it was added (without any calibrated cluster:
// a calibration starts from the presets) and what was measured of it, as
// the text typed or read from a log. Pure functions: the runs document the
// core's calibrate takes, a run's label, and the rows of the parity chart.
import { toConfig } from './fields.js';
import { noCalibration } from './calibration.js';

/** The step figures a run may give, as the runs document names them. */
export const FIGURES = {
  step_s: 'Step time (s)',
  tokens_per_s_per_gpu: 'Tokens/s per GPU',
  tflops_per_gpu: 'TFLOP/s per GPU (trainplan count)',
  mfu: 'MFU (0 to 1)',
};
export const MEMORY_KINDS = ['reserved', 'allocated'];
const NAME_SIZE = 47; /* the core's limit on a run's name */
const NUMBER = /^([0-9]{1,15}(\.[0-9]{0,20})?|\.[0-9]{1,20})(e[+-]?[0-9]{1,3})?$/i;

/** A short label of a run's plan: "llama-3.1-8b · 8 GPUs · tp2 pp1 cp1 · mb1 · seq 8192 · batch 64". */
export function planLabel(inputs) {
  return `${inputs.model} · ${inputs.gpus} GPUs · tp${inputs.tp} pp${inputs.pp} cp${inputs.cp} · mb${inputs.mbs}` +
    ` · seq ${inputs.seq} · batch ${inputs.gbs}`;
}

/** A new run of the inputs, numbered `n`. */
export function newRun(inputs, n) {
  const base = { ...inputs, ...noCalibration() };
  return { name: `run ${n}: ${inputs.model} tp${inputs.tp} pp${inputs.pp}`.slice(0, NAME_SIZE), inputs: base,
    figure: 'step_s', value: '', memory: '', memoryKind: 'reserved', log: null, logError: null };
}

/** The run with what a log reader's output (trainplan calibrate-log) says
 * of it: its step figure and, when the log gave one, its peak memory. */
export function withLog(run, read) {
  const [figure, value] = Object.entries(read.measured).find(([k]) => k in FIGURES);
  const next = { ...run, figure, value: String(value), log: read, logError: null };
  if (read.measured.peak_memory_gib !== undefined) {
    Object.assign(next, { memory: String(Number(read.measured.peak_memory_gib.toPrecision(6))),
      memoryKind: read.measured.memory_kind });
  }
  return next;
}

/** One line on what a log gave: "torchtitan: tps, median of 9 step lines
 * after 3 warm-up lines skipped (5,750 to 5,770); peak memory 61.2 GiB". */
export function logSummary(read) {
  const range = read.min === read.max ? '' : ` (${read.min.toPrecision(4)} to ${read.max.toPrecision(4)})`;
  const memory = read.memory_key
    ? `; ${read.measured.memory_kind} peak ${read.measured.peak_memory_gib.toFixed(2)} GiB from "${read.memory_key}"`
    : '; no memory line';
  return `${read.trainer}: "${read.key}", median of ${read.used} step line${read.used === 1 ? '' : 's'} after ` +
    `${read.skipped} warm-up line${read.skipped === 1 ? '' : 's'} skipped${range}${memory}`;
}

/** A typed number as the core reads it: a number when it is one, else the
 * text, for the core to refuse at its path. */
const numberOrText = (text) => (NUMBER.test(text) ? Number(text) : text);

/** The shipped constants' weight as a prior when the panel asks for it:
 * what docs/calibrate.md advises for a handful of runs. */
export const PRIOR_WEIGHT = 1;

/** The runs document (docs/calibrate.md) of the panel's runs, with the
 * shipped constants as a prior when `prior`. */
export function runsDocument(runs, prior = false) {
  return {
    ...(prior ? { prior_weight: PRIOR_WEIGHT } : {}),
    runs: runs.map((run) => {
      const measured = {};
      if (run.value !== '') measured[run.figure] = numberOrText(run.value);
      if (run.memory !== '') Object.assign(measured, { peak_memory_gib: numberOrText(run.memory), memory_kind: run.memoryKind });
      return { name: run.name, config: toConfig(run.inputs), measured };
    }),
  };
}

/** Which run an error of the core names ("runs[2].measured.step_s": 2),
 * or -1. */
export function runOfError(error) {
  const match = /^runs\[(\d+)\]/.exec(error?.path ?? '');
  return match ? Number(match[1]) : -1;
}

/** The parity chart's points: each run's predicted step time before and
 * after the fit against the measured one, and the extent both axes share. */
export function parityRows(output) {
  const rows = [];
  output.runs.forEach((r, i) => {
    if (r.measured_step_s === undefined) return;
    const name = r.name ?? `run ${i + 1}`;
    rows.push({ name, fit: 'before', measured: r.measured_step_s, predicted: r.predicted_step_s_before });
    rows.push({ name, fit: 'after', measured: r.measured_step_s, predicted: r.predicted_step_s_after });
  });
  const values = rows.flatMap((r) => [r.measured, r.predicted]);
  const extent = values.length > 0 ? [Math.min(...values) * 0.9, Math.max(...values) * 1.1] : [0, 1];
  return { rows, extent };
}
