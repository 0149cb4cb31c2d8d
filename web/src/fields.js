// fields.js: every input of the page, described once. Each field knows its
// config path (the JSON path the core reports errors against), its URL key,
// its default, its unit and a short help text. state.js, url.js and the
// form all read this table.

/** @typedef {{key: string, path: string, label: string, unit?: string, help: string,
 *   kind: 'int'|'select'|'bool', group: string, default: string, options?: string[]}} Field */

/** @type {Field[]} */
export const FIELDS = [
  { key: 'model', path: 'model.preset', label: 'Model', kind: 'select', group: 'Model', default: 'llama-3.1-8b',
    help: 'Architecture preset (layers, hidden, heads, kv heads, MLP width, vocabulary).' },
  { key: 'gpu', path: 'system.gpu', label: 'GPU', kind: 'select', group: 'Hardware', default: 'h100-80gb',
    help: 'GPU preset: memory, tensor FLOP/s, HBM and link bandwidths.' },
  { key: 'gpus', path: 'system.gpus', label: 'GPUs', unit: 'GPUs', kind: 'int', group: 'Hardware', default: '8',
    help: 'GPUs in the job; dp = GPUs / (tp·pp·cp).' },
  { key: 'gpn', path: 'system.gpus_per_node', label: 'GPUs per node', unit: 'GPUs', kind: 'int', group: 'Hardware',
    default: '8', help: 'Size of the NVLink domain.' },
  { key: 'seq', path: 'training.seq_len', label: 'Sequence length', unit: 'tokens', kind: 'int', group: 'Training',
    default: '8192', help: 'Tokens per sample (s).' },
  { key: 'gbs', path: 'training.global_batch', label: 'Global batch', unit: 'samples', kind: 'int', group: 'Training',
    default: '1024', help: 'Samples per optimizer step.' },
  { key: 'mbs', path: 'training.micro_batch', label: 'Micro-batch', unit: 'samples', kind: 'int', group: 'Training',
    default: '1', help: 'Samples per micro-batch (b).' },
  { key: 'tp', path: 'parallel.tp', label: 'Tensor parallel', unit: 'tp', kind: 'int', group: 'Parallelism',
    default: '1', help: 'Splits every layer across GPUs; must divide heads and kv heads.' },
  { key: 'pp', path: 'parallel.pp', label: 'Pipeline parallel', unit: 'pp', kind: 'int', group: 'Parallelism',
    default: '1', help: 'Splits the layers into stages (1F1B schedule); must divide layers.' },
  { key: 'cp', path: 'parallel.cp', label: 'Context parallel', unit: 'cp', kind: 'int', group: 'Parallelism',
    default: '1', help: 'Splits the sequence; must divide the sequence length.' },
  { key: 'sp', path: 'parallel.sp', label: 'Sequence parallel', kind: 'bool', group: 'Parallelism', default: '1',
    help: 'Splits norm and block inputs over tp (Korthikanti et al.).' },
  { key: 'zero', path: 'parallel.zero', label: 'ZeRO stage', kind: 'select', group: 'Parallelism', default: '1',
    options: ['0', '1', '2', '3'],
    help: '1 shards optimizer states over dp·cp (distributed optimizer), 2 also gradients, 3 also weights.' },
];

export const GROUPS = ['Model', 'Hardware', 'Training', 'Parallelism'];

/** @returns {Record<string, string>} */
export function defaultInputs() {
  return Object.fromEntries(FIELDS.map((f) => [f.key, f.default]));
}

/** What an integer field's text must look like to be sent as a number (15
 * digits stay exact in a double); the URL reader uses the same shape. */
export const INT_TEXT = /^[0-9]{1,15}$/;

/** An integer field's text as a number when it is one, else the text, so the
 * core reports "must be an integer" against the field's path. */
function intOrText(text) {
  return INT_TEXT.test(text) ? Number(text) : text;
}

/** The config document (the CLI's input format) for a set of inputs. */
export function toConfig(inputs) {
  const n = (key) => intOrText(inputs[key]);
  return {
    model: { preset: inputs.model },
    system: { gpu: inputs.gpu, gpus: n('gpus'), gpus_per_node: n('gpn') },
    training: { seq_len: n('seq'), global_batch: n('gbs'), micro_batch: n('mbs') },
    parallel: { tp: n('tp'), pp: n('pp'), cp: n('cp'), sp: inputs.sp === '1', zero: n('zero') },
  };
}
