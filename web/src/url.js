// url.js: the inputs live in the URL hash, so a reload or a shared link
// restores them. The hash is untrusted: only known keys are read, each value
// is length-limited and must match its field's shape; anything else is
// reported and left at its default, never inserted as HTML.
import { FIELDS, INT_TEXT, LIST_TEXT, NUMBER_TEXT, defaultInputs } from './fields.js';

export const URL_VERSION = '1';
const MAX_HASH_LENGTH = 2000;
const MAX_VALUE_LENGTH = 300; /* a list of 32 GPU counts */
const VALUE_SHAPE = { int: INT_TEXT, number: NUMBER_TEXT, select: /^[a-z0-9._-]{1,48}$/, bool: /^[01]$/, list: LIST_TEXT };

/** @returns {string} "#v=1&model=...&tp=..." */
export function encodeHash(inputs) {
  const params = new URLSearchParams({ v: URL_VERSION });
  for (const f of FIELDS) params.set(f.key, inputs[f.key]);
  return '#' + params.toString();
}

/** @returns {{inputs: Record<string, string>, problems: string[]}} */
export function decodeHash(hash) {
  const inputs = defaultInputs();
  const problems = [];
  if (!hash || hash === '#') return { inputs, problems };
  if (hash.length > MAX_HASH_LENGTH) {
    problems.push(`link ignored: longer than ${MAX_HASH_LENGTH} characters`);
    return { inputs, problems };
  }
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const version = params.get('v');
  if (version !== URL_VERSION) problems.push(`link version ${version ?? '(none)'} read as version ${URL_VERSION}`);
  for (const f of FIELDS) {
    const value = params.get(f.key);
    if (value === null) continue;
    const allowed = (value === '' && f.optional) || (value.length <= MAX_VALUE_LENGTH && VALUE_SHAPE[f.kind].test(value));
    if (allowed) inputs[f.key] = value;
    else problems.push(`link value for ${f.key} ignored: not a valid ${f.kind}`);
  }
  return { inputs, problems };
}
