// url.js: the inputs live in the URL hash, so a reload or a shared link
// restores them. The hash is untrusted: only known keys are read, each value
// is length-limited and must match its field's shape; anything else is
// reported and left at its default, never inserted as HTML. A calibrated
// cluster travels as cal=1 and cal.PARAMETER=value (calibration.js), each
// value checked against its parameter's range.
import { FIELDS, INT_TEXT, LIST_TEXT, NUMBER_TEXT, defaultInputs } from './fields.js';
import { CAL_PARAMS, calKey, calProblem, noCalibration } from './calibration.js';

export const URL_VERSION = '1';
const MAX_HASH_LENGTH = 2000;
const MAX_VALUE_LENGTH = 300; /* a list of 32 GPU counts */
/* Preset names a link may carry from before the presets were named after
 * their source; the core reads them as well (core/presets.c, preset_aliases),
 * and the form shows the current name for each. */
const RENAMED_PRESETS = {
  'vit-seed002': 'vit-era5', 'a100-seed002': 'a100-lbnl', 'h200-seed002': 'h200-lbnl', 'b200-seed002': 'b200-lbnl',
  'seed002-a100': 'lbnl-a100', 'seed002-h200': 'lbnl-h200', 'seed002-b200': 'lbnl-b200',
};
const VALUE_SHAPE = { int: INT_TEXT, number: NUMBER_TEXT, select: /^[a-z0-9._-]{1,48}$/, bool: /^[01]$/, list: LIST_TEXT };

/** @returns {string} "#v=1&model=...&tp=...", then with a pinned
 * configuration "&pin=1" and "pin.KEY=value" for each input where it
 * differs from the current one. */
export function encodeHash(inputs, pinned = null) {
  const params = new URLSearchParams({ v: URL_VERSION });
  for (const f of FIELDS) params.set(f.key, inputs[f.key]);
  if (inputs.cal === '1') {
    params.set('cal', '1');
    for (const p of CAL_PARAMS) if (inputs[calKey(p)] !== '') params.set(calKey(p), inputs[calKey(p)]);
  }
  if (pinned) {
    params.set('pin', '1');
    for (const f of FIELDS) if (pinned[f.key] !== inputs[f.key]) params.set(`pin.${f.key}`, pinned[f.key]);
    if (pinned.cal !== inputs.cal) params.set('pin.cal', pinned.cal);
    for (const p of CAL_PARAMS) {
      const key = calKey(p);
      if (pinned.cal === '1' && pinned[key] !== inputs[key]) params.set(`pin.${key}`, pinned[key]);
    }
  }
  return '#' + params.toString();
}

/** The calibrated cluster under `prefix` over `inputs`' own: cal=0 drops
 * it, cal=1 (or, for a pin, the current one's) reads each value given over
 * inputs' own; a value out of shape or range is named and left out, so that
 * the preset's value stands for it. */
function readCalibration(params, prefix, inputs, problems) {
  const given = params.get(prefix + 'cal');
  if (given !== null && given !== '0' && given !== '1') {
    problems.push(`link value for ${prefix}cal ignored: not 0 or 1`);
    return inputs;
  }
  if ((given ?? inputs.cal) !== '1') return { ...inputs, ...noCalibration() };
  const out = { ...(inputs.cal === '1' ? inputs : { ...inputs, ...noCalibration() }), cal: '1' };
  for (const p of CAL_PARAMS) {
    const value = params.get(prefix + calKey(p));
    if (value === null) continue;
    const problem = value.length > MAX_VALUE_LENGTH ? 'too long' : calProblem(p, value);
    if (problem) {
      problems.push(`link value for ${prefix}${calKey(p)} ignored: ${problem}`);
      out[calKey(p)] = '';
    } else {
      out[calKey(p)] = value;
    }
  }
  return out;
}

/** Each field's value under `prefix` in `params` over `inputs`; values of
 * the wrong shape are left out and reported. */
function readFields(params, prefix, inputs, problems) {
  const out = { ...inputs };
  for (const f of FIELDS) {
    const value = params.get(prefix + f.key);
    if (value === null) continue;
    const allowed = (value === '' && f.optional) || (value.length <= MAX_VALUE_LENGTH && VALUE_SHAPE[f.kind].test(value));
    if (allowed) out[f.key] = f.kind === 'select' && Object.hasOwn(RENAMED_PRESETS, value) ? RENAMED_PRESETS[value] : value;
    else problems.push(`link value for ${prefix}${f.key} ignored: not a valid ${f.kind}`);
  }
  return out;
}

/** @returns {{inputs: Record<string, string>, pinned: Record<string, string>|null, problems: string[]}} */
export function decodeHash(hash) {
  const problems = [];
  const none = { inputs: defaultInputs(), pinned: null, problems };
  if (!hash || hash === '#') return none;
  if (hash.length > MAX_HASH_LENGTH) {
    problems.push(`link ignored: longer than ${MAX_HASH_LENGTH} characters`);
    return none;
  }
  let params;
  try {
    // URLSearchParams replaces broken percent-escapes with U+FFFD, which no
    // field's shape admits; the check is for what it cannot parse at all.
    params = new URLSearchParams(hash.replace(/^#/, ''));
  } catch {
    problems.push('link ignored: it cannot be read as key=value pairs');
    return none;
  }
  const version = params.get('v');
  if (version !== URL_VERSION) problems.push(`link version ${version ?? '(none)'} read as version ${URL_VERSION}`);
  const inputs = readCalibration(params, '', readFields(params, '', defaultInputs(), problems), problems);
  const pinned = params.get('pin') === '1'
    ? readCalibration(params, 'pin.', readFields(params, 'pin.', inputs, problems), problems) : null;
  return { inputs, pinned, problems };
}
