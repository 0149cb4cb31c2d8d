// items.js: the memory line items of a stage and the parts of the step time
// as the page shows them, for the stage table, the charts, the comparison
// and the explanations.
// With routed experts, their weights, gradients, optimizer states and routed
// activations come out of the first four items and make their own line.

const DENSE_ITEMS = [
  ['weights_bytes', 'Weights'],
  ['gradients_bytes', 'Gradients'],
  ['optimizer_bytes', 'Optimizer'],
  ['activations_bytes', 'Activations'],
];

/** Whether a result has routed experts on any stage. */
export const hasExperts = (result) => result.memory.stages.some((s) => s.experts.params > 0);

/** The items as [key, label, bytes(stage)], summing to a stage's total; the
 * "Experts" line when any of the results has experts. */
export function memoryItems(...results) {
  const moe = results.some(hasExperts);
  const items = DENSE_ITEMS.map(([key, label]) => [key, label, (s) => s[key] - (moe ? s.experts[key] : 0)]);
  if (moe) {
    items.push(['experts_bytes', 'Experts', (s) => DENSE_ITEMS.reduce((sum, [key]) => sum + s.experts[key], 0)]);
  }
  items.push(['other_bytes', 'Other', (s) => s.other_bytes]);
  return items;
}

/** The memory items' colours: Okabe and Ito's colour-blind-safe hues
 * (Color Universal Design, 2008), darkened where needed so that each has
 * 3:1 contrast against the page in light (#fff) and dark (#14171c) mode
 * alike (tests/web/palette.test.mjs); an item keeps its colour with or
 * without experts. */
export const MEMORY_COLORS = { Weights: '#0072b2', Gradients: '#c17a00', Optimizer: '#cc79a7', Activations: '#009e73',
  Experts: '#d55e00', Other: '#8c8c8c' };

/** The lines of a stage's Other, as [key in stage.other, label]. */
export const OTHER_LINES = [
  ['cuda_context_bytes', 'CUDA context'],
  ['nccl_bytes', 'NCCL buffers'],
  ['loss_workspace_bytes', 'Loss workspace'],
  ['backward_workspace_bytes', 'Backward workspace'],
  ['gathered_params_bytes', 'Gathered weights'],
  ['gradient_bucket_bytes', 'Gradient bucket'],
  ['fragmentation_bytes', 'Fragmentation'],
];

/** The step-time items of the core's `time` section, with their colours
 * (Okabe and Ito's hues first, then others with the same 3:1 contrast in
 * light and dark mode); they sum to step_s. */
export const TIME_ITEMS = [
  ['compute_s', 'Compute', '#0072b2'],
  ['tp_comm_s', 'Tensor parallel', '#c17a00'],
  ['cp_comm_s', 'Context parallel', '#cc79a7'],
  ['ep_comm_s', 'Expert all-to-all', '#d55e00'],
  ['pp_comm_s', 'Pipeline p2p', '#009e73'],
  ['dp_comm_s', 'Data parallel', '#aa4499'],
  ['offload_s', 'Host copies (offload)', '#0f8f6b'],
  ['bubble_s', 'Pipeline bubble', '#8c8c8c'],
  ['optimizer_s', 'Optimizer step', '#9467bd'],
  ['data_wait_s', 'Data loader wait', '#b5651d'],
  ['step_overhead_s', 'Host overhead', '#6f7f8f'],
];

/** Items shown only where one of the sections has them: a dense model
 * never has an all-to-all, the loader seldom keeps the GPUs waiting, and
 * the core writes offload_s only with training.offload_layers. */
const RARE_ITEMS = ['ep_comm_s', 'offload_s', 'data_wait_s'];

/** The items to show for some `time` sections. */
export function timeItems(...times) {
  return TIME_ITEMS.filter(([key]) => !RARE_ITEMS.includes(key) || times.some((t) => t[key] > 0));
}
