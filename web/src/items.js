// items.js: the memory line items of a stage as the page shows them, for
// the stage table, the stacked bars, the comparison and the explanations.
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
