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

/** The groups a placement counts ranks per node of, in the order the
 * page's field lists them (tp,cp,dp,pp). */
export const PLACEMENT_GROUPS = ['tp', 'cp', 'dp', 'pp'];

/** A placement's ranks per node ({tp, cp, dp, pp}) as the search labels
 * it: the groups with more than one rank on a node, "tp4 pp2". */
export function placement(perNode) {
  const shared = PLACEMENT_GROUPS.filter((d) => perNode[d] > 1).map((d) => `${d}${perNode[d]}`);
  return shared.length > 0 ? shared.join(' ') : '1 per node';
}
