// fit.js: the one rule for "does this plan fit?", which the banner, the
// headline, the memory chart, the heatmap, the comparison and the search
// all apply. A plan fits when its peak per-GPU memory is at most the
// search's memory limit (search.memory_fraction, the form's "Memory limit",
// 80% by default after Fujii et al. 2024) of the GPU's capacity: the same
// test the core's search makes (peak <= fraction * capacity), so a plan the
// estimate calls fitting is one the search would also keep.

/** The memory limit as a fraction of capacity, from the form's percent
 * text; the search's default (0.8) while that text is not a valid percent. */
export function memoryLimit(inputs) {
  const percent = Number(inputs.smem);
  return /^[0-9]{1,3}$/.test(inputs.smem ?? '') && percent > 0 && percent <= 100 ? percent / 100 : 0.8;
}

/** Whether a peak fits under the limit on a GPU of this capacity. */
export const fitsUnder = (limit, peakBytes, capacityBytes) => peakBytes <= limit * capacityBytes;

/** The same for an estimate's result. */
export const resultFits = (result, limit) => fitsUnder(limit, result.memory.peak_bytes, result.memory.capacity_bytes);

/** The limit as people read it: "80%". */
export const limitText = (limit) => `${Math.round(100 * limit)}%`;
