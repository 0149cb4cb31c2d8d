/*
 * worker.js: a classic web worker that owns one instance of the WebAssembly
 * core. The page posts {id, op, config, ...}; the worker answers
 * {id, ok, result} or {id, ok: false, error: {status, path, message}}.
 *   estimate, search, presets   as tp.estimate, tp.search, tp.presets
 *   searchPart {part, parts}    one part of a split search: result
 *                               {info, bytes}, bytes transferred
 *   searchMerge {parts}         the whole search from every part's bytes
 *   sweep {shard, shards}       trainplan sweep, or one shard of it
 *   sweepMerge {outputs}        the whole sweep from every shard's output
 *   calibrate {config}          trainplan calibrate on a runs document
 *   calibrateLog {text}         trainplan calibrate-log on a log excerpt
 *   grid {configs}              estimates of many configs (a heatmap): per
 *                               config its memory and speed, or its error
 * Requests carry ids so the page can match replies.
 */
/* global importScripts, createTrainplan, Trainplan */
importScripts('trainplan-core.js', 'trainplan.js');

const ready = Trainplan.load(createTrainplan);
// The page's first request reaches a worker only once the page's main
// thread has acknowledged the worker's start, which it does after its own
// start-up work: 150-300 ms on a small machine during which this worker
// sits idle. It spends them running the core once (the default estimate
// and the presets), so that the first request's call does not pay for
// compiling the WebAssembly functions and the wrapper's JavaScript it
// runs through (45-120 ms measured on a 2-core VM; about 5 ms once warm).
ready.then((tp) => {
  tp.estimate({});
  tp.presets();
}).catch(() => {}); // a core that fails to load answers every request with the error

const isCoreError = (e) => e && e.name === 'TrainplanError';

/** The reply's error for a thrown value: the core's, or an internal one. */
function errorOf(e) {
  return isCoreError(e)
    ? { status: e.status, path: e.path, message: e.reason }
    : { status: 'internal', path: '', message: String(e && e.message ? e.message : e) };
}

/** One heatmap cell: the figures a heatmap colours by, or the core's error
 * (any other failure fails the whole call). */
function gridCell(tp, config) {
  try {
    const r = tp.estimate(config);
    return { ok: true, peak_bytes: r.memory.peak_bytes, capacity_bytes: r.memory.capacity_bytes, zone: r.memory.zone,
      step_s: r.time.step_s, tokens_per_s_per_gpu: r.throughput.tokens_per_s_per_gpu, mfu: r.throughput.mfu };
  } catch (e) {
    if (!isCoreError(e)) throw e;
    return { ok: false, error: errorOf(e) };
  }
}

self.onmessage = async (event) => {
  const { id, op, config } = event.data;
  try {
    const tp = await ready;
    let result;
    let transfer = [];
    if (op === 'estimate') result = tp.estimate(config);
    else if (op === 'search') result = tp.search(config);
    else if (op === 'searchPart') {
      result = tp.searchPart(config, event.data.part, event.data.parts);
      transfer = [result.bytes.buffer];
    } else if (op === 'searchMerge') result = tp.searchMerge(config, event.data.parts);
    else if (op === 'sweep') result = tp.sweep(config, event.data.shard, event.data.shards);
    else if (op === 'sweepMerge') result = tp.sweepMerge(event.data.outputs);
    else if (op === 'calibrate') result = tp.calibrate(config);
    else if (op === 'calibrateLog') result = tp.calibrateLog(event.data.text);
    else if (op === 'grid') result = event.data.configs.map((c) => gridCell(tp, c));
    else if (op === 'presets') result = { presets: tp.presets(), version: tp.version() };
    else throw new Error(`unknown op ${op}`);
    self.postMessage({ id, ok: true, result }, transfer);
  } catch (e) {
    self.postMessage({ id, ok: false, error: errorOf(e) });
  }
};
