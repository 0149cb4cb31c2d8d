// sweep.js: the hardware what-if studies of Subramanian et al. 2024 (its
// Figures 5 and 6) on the page. A sweep is `trainplan sweep`'s output: the
// best plan at every point of a grid of hardware axes, run here in the
// workers or loaded from a file the CLI wrote
// (`trainplan sweep --merge shard-*.json > study.json`). This file builds the
// document for a sweep run here, checks a loaded file (it is untrusted: its
// shape, sizes and types), and picks a heatmap's cells.
import { LIST_TEXT, toSearchDocument } from './fields.js';
import { count } from './format.js';

/** The axes `trainplan sweep` takes, with the unit of their values and
 * default values: Subramanian et al. 2024 Table A3's A100, H200 and B200
 * figures. */
export const SWEEP_AXES = {
  tensor_tflops: { label: 'Tensor FLOP/s (TFLOP/s)', values: '312,990,2500' },
  memory_gib: { label: 'HBM capacity (GiB)', values: '80,141,192' },
  hbm_gb_per_s: { label: 'HBM bandwidth (GB/s)', values: '1555,4800,8000' },
  gpus_per_node: { label: 'NVS domain (GPUs)', values: '4,8,16,32,64' },
  fast_gb_per_s: { label: 'NVS bandwidth (GB/s per GPU)', values: '300,450,900' },
  slow_gbit_per_s: { label: 'Network (Gbit/s per NIC)', values: '200,400,800' },
};

/** What a heatmap cell can be coloured by: a point's field, its label and
 * how it is shown; lower is better for days and memory. */
export const SWEEP_METRICS = {
  time_to_train_days: { label: 'Days to train', show: (v) => v.toFixed(v < 10 ? 1 : 0), scheme: 'viridis', reverse: true },
  tokens_per_s_per_gpu: { label: 'Tokens/s per GPU', show: (v) => count(v), scheme: 'viridis' },
  mfu: { label: 'MFU (%)', show: (v) => (100 * v).toFixed(1), scheme: 'viridis', scale: 100 },
  peak_memory_gib: { label: 'Peak memory per GPU (GiB)', show: (v) => v.toFixed(0), scheme: 'ylorrd' },
};

/** Axis names a file from before the units were named (the core reads
 * them too, until version 0.3). */
const OLD_AXES = { hbm_gbps: 'hbm_gb_per_s', fast_gbps: 'fast_gb_per_s', slow_gbps: 'slow_gbit_per_s' };

const MAX_POINTS = 4096; // the core's grid limit
const MAX_VALUES = 64;   // values per axis

/** The sweep document for the form's inputs over two axes given as
 * comma-separated values (the search section is the page's own, presets
 * deciding whether fp8 is tried). A list of the wrong shape is sent as
 * text, so the core names the axis at fault. */
export function sweepDocument(inputs, axes, presets = null) {
  const sweep = {};
  for (const [axis, text] of axes) {
    sweep[axis] = LIST_TEXT.test(text) && text !== '' ? text.split(',').map(Number) : text;
  }
  const { search, ...config } = toSearchDocument(inputs, presets);
  // a sweep point asks for the best plan only: no scaling list, one plan kept
  const { gpus, ...space } = search;
  return { ...config, search: { ...space, top: 1 }, sweep };
}

const isNumber = (v) => typeof v === 'number' && Number.isFinite(v);
const isCount = (v) => Number.isInteger(v) && v >= 1;

/** A loaded sweep file: checkSweep of its JSON. */
export function readSweep(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    return { error: 'not JSON: expected the output of trainplan sweep' };
  }
  return checkSweep(doc);
}

/** A sweep output (a file's, or the workers'), checked field by field:
 * {sweep} with the parts a heatmap needs, or {error} saying what is wrong.
 * Nothing of it is run or inserted as HTML; plan fields are read as
 * numbers. */
export function checkSweep(doc) {
  if (!doc || typeof doc !== 'object' || !doc.sweep || typeof doc.sweep !== 'object' || !Array.isArray(doc.points)) {
    return { error: 'not a sweep output: it needs "sweep" and "points" (trainplan sweep, or sweep --merge)' };
  }
  if (doc.shard && doc.shard.count !== 1) {
    return { error: `shard ${doc.shard.index} of ${doc.shard.count}: merge the shards first (trainplan sweep --merge)` };
  }
  // a file's own keys only: "toString" is no axis; old names read as new
  const given = Object.keys(doc.sweep);
  const axes = given.map((a) => (Object.hasOwn(OLD_AXES, a) ? OLD_AXES[a] : a));
  if (axes.length === 0 || axes.some((a) => !Object.hasOwn(SWEEP_AXES, a))) {
    return { error: `unknown sweep axes: ${axes.filter((a) => !Object.hasOwn(SWEEP_AXES, a)).join(', ') || '(none)'}` };
  }
  if (new Set(axes).size !== axes.length) return { error: 'an axis is given under its old name and its new one' };
  const values = Object.fromEntries(given.map((a, i) => [axes[i], doc.sweep[a]]));
  let size = 1;
  for (const [i, a] of axes.entries()) {
    const list = values[a];
    if (!Array.isArray(list) || list.length < 1 || list.length > MAX_VALUES || !list.every(isNumber)) {
      return { error: `sweep.${given[i]}: must be 1 to ${MAX_VALUES} numbers` };
    }
    size *= list.length;
  }
  if (size > MAX_POINTS || doc.points.length !== size) {
    return { error: `the grid has ${size} points and the file ${doc.points.length}` };
  }
  const points = [];
  for (const [i, p] of doc.points.entries()) {
    if (!p || typeof p !== 'object' || !p.at || given.some((a) => !isNumber(p.at[a])) || typeof p.fits !== 'boolean') {
      return { error: `points[${i}]: needs "at" with a number for every axis, and "fits"` };
    }
    const point = { at: Object.fromEntries(given.map((a, k) => [axes[k], p.at[a]])), fits: p.fits };
    if (p.fits) {
      const plan = p.plan || {};
      const sizes = ['tp', 'cp', 'pp', 'dp', 'micro_batch'];
      if (!sizes.every((k) => isCount(plan[k])) || !Object.keys(SWEEP_METRICS).every((k) => isNumber(p[k]))) {
        return { error: `points[${i}]: a fitting point needs its plan sizes and ${Object.keys(SWEEP_METRICS).join(', ')}` };
      }
      point.plan = Object.fromEntries(sizes.map((k) => [k, plan[k]]));
      for (const k of Object.keys(SWEEP_METRICS)) point[k] = p[k];
    }
    points.push(point);
  }
  const model = typeof doc.config?.model?.name === 'string' ? doc.config.model.name.slice(0, 48) : 'model';
  return { sweep: { axes, values, points, gpus: isCount(doc.gpus) ? doc.gpus : 0, model } };
}

/** The cells of the x and y axes (y may be null for a single row) with
 * every other axis held at `fixed[axis]`. */
export function sweepCells(sweep, xAxis, yAxis, fixed) {
  return sweep.points
    .filter((p) => sweep.axes.every((a) => a === xAxis || a === yAxis || p.at[a] === fixed[a]))
    .map((p) => ({ ...p, x: p.at[xAxis], y: yAxis ? p.at[yAxis] : '' }));
}

/** A plan in one line. */
export const sweepPlanLabel = (plan) =>
  `tp ${plan.tp} · cp ${plan.cp} · pp ${plan.pp} · dp ${plan.dp} · b ${plan.micro_batch}`;
