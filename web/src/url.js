// url.js: the inputs live in the URL hash, so a reload or a shared link
// restores them. A link carries only what differs from the defaults, and
// ends with n=<the number of pairs before it>: a link cut short (by a chat
// window, a 180-character field) loses n or changes it, and the page says
// so. The hash is untrusted: only known keys are read, each value is
// length-limited and must read as its field's value; anything else is named
// in a problem (key and value) and left at its default, never inserted as
// HTML. A calibrated cluster travels as cal=1 and cal.PARAMETER=value
// (calibration.js), each value checked against its parameter's range.
// Links of version 1 carried every field and no n; they still open. A link
// leaves out what is at its default, so a change of a field's default
// changes what such links mean: that change also bumps URL_VERSION, and the
// old version's links are read over the old defaults.
import { FIELDS, LIST_TEXT, NAME_TEXT, defaultInputs, fieldProblem } from './fields.js';
import { CAL_PARAMS, calKey, calProblem, noCalibration } from './calibration.js';

export const URL_VERSION = '2';
const READABLE_VERSIONS = ['1', URL_VERSION];
const MAX_HASH_LENGTH = 2000;
const MAX_VALUE_LENGTH = 300; /* a list of 32 GPU counts */
/* Preset names a link may carry from before the presets were named after
 * their source; the core reads them as well (core/presets.c, preset_aliases),
 * and the form shows the current name for each. These keys are only read,
 * never shown. */
const RENAMED_PRESETS = {
  'vit-seed002': 'vit-era5', 'a100-seed002': 'a100-lbnl', 'h200-seed002': 'h200-lbnl', 'b200-seed002': 'b200-lbnl',
  'seed002-a100': 'lbnl-a100', 'seed002-h200': 'lbnl-h200', 'seed002-b200': 'lbnl-b200',
};
const SELECT_TEXT = /^[a-z0-9._-]{1,48}$/;
/** The fields whose options are the core's presets, known once it has
 * listed them (unknownPresets), and where in the presets each is listed. */
const PRESET_LISTS = { model: 'models', gpu: 'gpus', cluster: 'clusters' };

/** A value as a problem names it: quoted, and cut to 40 characters. */
const quoted = (value) => JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);

/** @returns {string} "#v=2&KEY=value&...&n=COUNT": each input that differs
 * from its default, then with a pinned configuration "pin=1" and
 * "pin.KEY=value" for each input where it differs from the current one,
 * then the count of the pairs before n. */
export function encodeHash(inputs, pinned = null) {
  const params = new URLSearchParams({ v: URL_VERSION });
  const defaults = defaultInputs();
  for (const f of FIELDS) if (inputs[f.key] !== defaults[f.key]) params.set(f.key, inputs[f.key]);
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
  params.set('n', String([...params.keys()].length));
  return '#' + params.toString();
}

/** The calibrated cluster under `prefix` over `inputs`' own: cal=0 drops
 * it, cal=1 (or, for a pin, the current one's) reads each value given over
 * inputs' own; a value out of shape or range is named and left out, so that
 * the preset's value stands for it. */
function readCalibration(params, prefix, inputs, problems) {
  const given = params.get(prefix + 'cal');
  if (given !== null && given !== '0' && given !== '1') {
    problems.push(`link value for ${prefix}cal ignored: ${quoted(given)} is not 0 or 1`);
    return inputs;
  }
  if ((given ?? inputs.cal) !== '1') return { ...inputs, ...noCalibration() };
  const out = { ...(inputs.cal === '1' ? inputs : { ...inputs, ...noCalibration() }), cal: '1' };
  for (const p of CAL_PARAMS) {
    const value = params.get(prefix + calKey(p));
    if (value === null) continue;
    const problem = value.length > MAX_VALUE_LENGTH ? 'too long' : calProblem(p, value);
    if (problem) {
      problems.push(`link value for ${prefix}${calKey(p)} ignored: ${quoted(value)}, ${problem}`);
      out[calKey(p)] = '';
    } else {
      out[calKey(p)] = value;
    }
  }
  return out;
}

/** Why a link's value cannot be field f's, naming the value, or null.
 * Preset names are checked later, against the core's list (unknownPresets). */
function valueProblem(f, value) {
  if (value.length > MAX_VALUE_LENGTH) return `a value of ${value.length} characters is too long`;
  if (value === '' && f.optional) return null;
  const q = quoted(value);
  switch (f.kind) {
    case 'select':
      if (!SELECT_TEXT.test(value)) return `${q} is not the name of a ${f.label.toLowerCase()}`;
      return f.options && !f.options.includes(value) ? `${q} is not one of ${f.options.join(', ')}` : null;
    case 'bool':
      return /^[01]$/.test(value) ? null : `${q} is not 0 or 1`;
    case 'list':
      return LIST_TEXT.test(value) ? null : `${q} is not a comma-separated list of whole numbers`;
    case 'text':
      return NAME_TEXT.test(value) ? null : `${q} is not a name (letters, digits, spaces and . _ / + ( ) , -)`;
    default:
      return fieldProblem(f, value);
  }
}

/** Each field's value under `prefix` in `params` over `inputs`; values that
 * do not read are left out and named. */
function readFields(params, prefix, inputs, problems) {
  const out = { ...inputs };
  for (const f of FIELDS) {
    const value = params.get(prefix + f.key);
    if (value === null) continue;
    const problem = valueProblem(f, value);
    if (problem) problems.push(`link value for ${prefix}${f.key} ignored: ${problem}`);
    else out[f.key] = f.kind === 'select' && Object.hasOwn(RENAMED_PRESETS, value) ? RENAMED_PRESETS[value] : value;
  }
  return out;
}

/** Whether a link's key is one this page reads. */
function knownKey(key) {
  const bare = key.startsWith('pin.') ? key.slice(4) : key;
  if (['v', 'n', 'pin'].includes(key) || bare === 'cal') return true;
  return FIELDS.some((f) => f.key === bare) || CAL_PARAMS.some((p) => calKey(p) === bare);
}

/** For a version 2 link: whether it ends with a right n, and if not, the
 * problem that says it looks cut. The last pair before the cut may have
 * lost the end of its value, so it is named and dropped. */
function checkCut(params, problems) {
  const pairs = [...params];
  const last = pairs.at(-1);
  if (last?.[0] === 'n' && last[1] === String(pairs.length - 1)) return params;
  const kept = pairs.filter(([key]) => key !== 'n');
  const dropped = last && last[0] !== 'n' && last[0] !== 'v' ? kept.pop() : null;
  problems.push('this link looks cut: it does not end with the count of its settings (n), so the settings it ' +
    'lost show their defaults' + (dropped ? `; its last setting, ${dropped[0]}=${quoted(dropped[1])}, may have ` +
    'lost its end and is left at its default' : ''));
  return new URLSearchParams(kept);
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
  if (!READABLE_VERSIONS.includes(version)) {
    problems.push(`link version ${version === null ? '(none)' : quoted(version)} read as version ${URL_VERSION}`);
  }
  if (version !== '1') params = checkCut(params, problems);
  const unknown = [...new Set(params.keys())].filter((key) => !knownKey(key));
  if (unknown.length > 0) problems.push(`link keys not known, ignored: ${unknown.slice(0, 8).map(quoted).join(', ')}`);
  const inputs = readCalibration(params, '', readFields(params, '', defaultInputs(), problems), problems);
  const pinned = params.get('pin') === '1'
    ? readCalibration(params, 'pin.', readFields(params, 'pin.', inputs, problems), problems) : null;
  return { inputs, pinned, problems };
}

/** Inputs with each preset name the core does not list (presets: the
 * core's presets output) named and set back to its default: a link cut
 * inside a model name reads "llama-3.1-", which no field's shape refuses.
 * A pin's name that is the current inputs' own (`base`), read over them, is
 * named once, for the inputs.
 * @returns {{inputs: Record<string, string>, problems: string[]}} */
export function unknownPresets(inputs, presets, prefix, base = null) {
  const out = { ...inputs };
  const problems = [];
  const defaults = defaultInputs();
  for (const [key, list] of Object.entries(PRESET_LISTS)) {
    const names = presets[list].map((p) => p.name);
    if (key === 'cluster') names.push('none');
    if (names.includes(inputs[key])) continue;
    out[key] = defaults[key];
    if (base?.[key] === inputs[key]) continue;
    problems.push(`link value for ${prefix}${key} ignored: ${quoted(inputs[key])} is not a ${key} trainplan ` +
      `knows (the link may be cut); showing ${defaults[key]}`);
  }
  return { inputs: out, problems };
}
