// exports.js: files the page hands out. The estimate and its config as the
// CLI reads and writes them (`trainplan estimate config.json` prints the
// same estimate), the search's plans as CSV, and the download itself.
import { PLACEMENT_GROUPS } from './format.js';

/** A JSON document as a file's text: the config the CLI reads, or the
 * estimate as it prints it (the same fields and values). */
export function jsonFile(document) {
  return JSON.stringify(document, null, 2) + '\n';
}

/** One CSV field: quoted when it holds a comma, quote or line break. */
function csvField(value) {
  const text = value === undefined || value === null ? '' : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const PLAN_COLUMNS = ['tp', 'cp', 'pp', 'dp', 'micro_batch', 'vpp', 'sp', 'sharding', 'recompute', 'fp8', 'schedule',
  'order'];
/** per_node is an object: one column per group, as the CLI's field names it. */
export const SEARCH_CSV_COLUMNS = ['list', 'rank', ...PLAN_COLUMNS, ...PLACEMENT_GROUPS.map((d) => `per_node.${d}`),
  'step_s', 'tokens_per_s_per_gpu', 'mfu', 'peak_memory_gib'];

/** The search's top plans (list "top", ranked) and its Pareto front (list
 * "pareto": no plan on it is beaten in both memory and throughput), one
 * row per plan, full precision. */
export function searchCsv(search) {
  const row = (list, rank, plan, figures) => [list, rank, ...PLAN_COLUMNS.map((k) => plan[k]),
    ...PLACEMENT_GROUPS.map((d) => plan.per_node[d]), figures.step_s, figures.tokens_per_s_per_gpu, figures.mfu, figures.peak_memory_gib];
  const rows = [
    ...search.plans.map((p) => row('top', p.rank, p.plan, {
      step_s: p.estimate.time.step_s,
      tokens_per_s_per_gpu: p.estimate.throughput.tokens_per_s_per_gpu,
      mfu: p.estimate.throughput.mfu,
      peak_memory_gib: p.estimate.memory.peak_bytes / 2 ** 30,
    })),
    ...search.pareto.map((p) => row('pareto', '', p.plan, p)),
  ];
  return [SEARCH_CSV_COLUMNS, ...rows].map((r) => r.map(csvField).join(',')).join('\n') + '\n';
}

/** Hands `content` (text or a Blob) to the browser as a file download. */
export function download(filename, content, type = 'application/json') {
  const blob = content instanceof Blob ? content : new Blob([content], { type });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
