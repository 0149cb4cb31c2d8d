// format.js: the one place numbers become text for people.
export const GIB = 1024 ** 3;

export const gib = (bytes) => (bytes / GIB).toFixed(2);
export const percent = (fraction) => (100 * fraction).toFixed(1) + '%';
export const billions = (count) => (count / 1e9).toFixed(2) + ' B';

/** A duration in the unit a person would say it in. */
export function seconds(s) {
  if (s === 0) return '0 s';
  if (s < 1e-3) return (s * 1e6).toFixed(1) + ' µs';
  if (s < 1) return (s * 1e3).toFixed(1) + ' ms';
  if (s < 120) return s.toFixed(2) + ' s';
  if (s < 7200) return (s / 60).toFixed(1) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}

// One formatter per number of decimals, made once: toLocaleString builds a
// new one on every call, which cost the first result some 30 ms.
const formatters = new Map();

/** A count with thousands separators and at most `digits` decimals. */
export function count(x, digits = 0) {
  let formatter = formatters.get(digits);
  if (!formatter) formatters.set(digits, formatter = new Intl.NumberFormat('en-US', { maximumFractionDigits: digits }));
  return formatter.format(x);
}

const POWER_WORDS = [[1e12, 'trillion'], [1e9, 'billion'], [1e6, 'million']];
const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

/** A limit or a typed value as a person reads it: 100,000, 0.001,
 * 10 million, 1 trillion, 1×10¹⁸ (never 1e+18). */
export function readable(x) {
  const size = Math.abs(x);
  if (size >= 1e15) {
    const [mantissa, exponent] = x.toExponential().split('e');
    return `${mantissa}×10${[...String(Number(exponent))].map((c) => SUPERSCRIPT[c]).join('')}`;
  }
  for (const [power, word] of POWER_WORDS) {
    if (size >= 10 * power || (size >= power && x % power === 0)) return `${count(x / power, 3)} ${word}`;
  }
  if (size !== 0 && size < 1e-3) return x.toExponential();
  return count(x, 6);
}

/** The groups a placement counts ranks per node of, in the order the
 * page's field lists them (tp,cp,dp,pp). */
export const PLACEMENT_GROUPS = ['tp', 'cp', 'dp', 'pp'];

/** A placement's ranks per node ({tp, cp, dp, pp}) as the search labels
 * it: the groups with more than one rank on a node, "tp4 pp2". */
export function placement(perNode) {
  const shared = PLACEMENT_GROUPS.filter((d) => perNode[d] > 1).map((d) => `${d}${perNode[d]}`);
  return shared.length > 0 ? shared.join(' ') : '1 per node';
}
