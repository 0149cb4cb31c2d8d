// calibration.js: a calibrated cluster as the page's inputs carry it. A
// calibration (trainplan calibrate, docs/calibrate.md) fits nine physical
// parameters to runs of the page's own GPU and cluster presets, so the
// calibrated cluster is those presets with the nine values: the inputs hold
// `cal` ('1' when one is applied) and `cal.<parameter>` for each, as text,
// like every other input, so that the link, the pin and the compare carry
// them as they carry the rest. toConfig (fields.js) sends them as the GPU's
// and the network's fields over the presets.
import { CORE_FIELDS } from './corefields.js';

/** The nine parameters, in the order calibrate prints them: the link's
 * key (cal.KEY), the config path, a label; min and max from the core. */
export const CAL_PARAMS = [
  { key: 'matmul_efficiency', path: 'system.gpu.matmul_efficiency', label: 'Matmul efficiency' },
  { key: 'attention_efficiency', path: 'system.gpu.attention_efficiency', label: 'Attention efficiency' },
  { key: 'kernel_latency_us', path: 'system.gpu.kernel_latency_us', label: 'Kernel latency (µs)' },
  { key: 'fast_efficiency', path: 'system.network.fast_efficiency', label: 'NVLink efficiency' },
  { key: 'slow_efficiency', path: 'system.network.slow_efficiency', label: 'Inter-node efficiency' },
  { key: 'overlap_slowdown', path: 'system.gpu.overlap_slowdown', label: 'Overlap slowdown, across nodes' },
  { key: 'nvlink_overlap_slowdown', path: 'system.gpu.nvlink_overlap_slowdown', label: 'Overlap slowdown, NVLink' },
  { key: 'step_overhead_s', path: 'system.step_overhead_s', label: 'Host overhead per step (s)' },
  { key: 'fragmentation', path: 'overheads.fragmentation', label: 'Allocator fragmentation' },
];
for (const p of CAL_PARAMS) {
  const row = CORE_FIELDS.find((r) => r.path === p.path);
  Object.assign(p, { min: row?.min ?? 0, max: row?.max ?? 1 });
}

export const calKey = (param) => `cal.${param.key}`;

/** What a calibrated value's text must look like (in the link as in the
 * inputs): a plain decimal, no sign or exponent. */
export const CAL_NUMBER_TEXT = /^[0-9]{1,7}(\.[0-9]{1,12})?$/;

/** The inputs of no calibration: cal '0', every value empty. */
export function noCalibration() {
  return Object.fromEntries([['cal', '0'], ...CAL_PARAMS.map((p) => [calKey(p), ''])]);
}

/** A fitted value as the inputs keep it: 6 significant digits, plain
 * decimal (values under 10^-6, an efficiency or latency at its bound of 0
 * in all but rounding, as 0). */
export function calText(value) {
  if (!Number.isFinite(value) || value < 1e-6) return '0';
  return String(Number(value.toPrecision(6)));
}

/** The inputs a calibrate output applies: every parameter's fitted value
 * (the runs' own where the fit left it). */
export function calibrationInputs(output) {
  const next = { cal: '1' };
  for (const p of CAL_PARAMS) {
    const fitted = output.parameters.find((q) => q.name === p.path)?.fitted;
    next[calKey(p)] = fitted === undefined ? '' : calText(fitted);
  }
  return next;
}

/** Why a value from a link cannot be one of param's, or null. */
export function calProblem(param, text) {
  if (!CAL_NUMBER_TEXT.test(text)) return `not a plain decimal number (from ${param.min} to ${param.max})`;
  const value = Number(text);
  return value < param.min || value > param.max ? `not a number from ${param.min} to ${param.max}` : null;
}

/** The calibrated values of the inputs as config sections: {gpu, network,
 * system, overheads}, each only with the values given; null when no
 * calibration is applied. A value that is not a number goes as its text,
 * for the core to refuse at its path. */
export function calibratedSections(inputs) {
  if (inputs.cal !== '1') return null;
  const out = { gpu: {}, network: {}, system: {}, overheads: {} };
  for (const p of CAL_PARAMS) {
    const text = inputs[calKey(p)];
    if (text === undefined || text === '') continue;
    const value = CAL_NUMBER_TEXT.test(text) ? Number(text) : text;
    const [section, ...rest] = p.path.split('.');
    if (section === 'overheads') out.overheads[rest[0]] = value;
    else if (rest.length === 1) out.system[rest[0]] = value;
    else out[rest[0]][rest[1]] = value;
  }
  return out;
}

/** One line for people: "matmul 0.72, attention 0.41, …". */
export function calSummary(inputs) {
  return CAL_PARAMS.filter((p) => inputs[calKey(p)] !== '' && inputs[calKey(p)] !== undefined)
    .map((p) => `${p.label.toLowerCase()} ${inputs[calKey(p)]}`).join(', ');
}
