// engine.js: the only module that talks to the WebAssembly core. The core
// runs in classic web workers (static/wasm/worker.js); calls are promises of
// the worker's reply {ok, result} or {ok: false, error}.
//
// The estimate has a worker of its own, which also answers the other quick
// calls (heatmap grid, presets, a log excerpt read). Searches, sweeps and
// fits run on a pool of search workers, one per core the browser offers (at
// most MAX_WORKERS), started with the first of them. A search takes
// seconds and a worker cannot be interrupted mid-call, so sharing a worker
// made each new estimate wait for the search part in progress: with the
// estimate apart, switching model shows the new figures while a search runs.
//
// A search is split into parts (core tp_search_part: the shapes tp, cp, pp
// dealt round-robin), PARTS_PER_WORKER per worker so that progress moves
// and a slow part does not hold the others up; the workers take parts from
// one queue, and the first worker merges them (the parts' results travel as
// bytes) into the output of a whole search. A newer search cancels the parts
// of an older one that have not started.

export const MAX_WORKERS = 8;
const PARTS_PER_WORKER = 4;

/** One worker (made here from its URL, or one already started) and its
 * pending calls, keyed by id. */
function connect(urlOrWorker) {
  const worker = typeof urlOrWorker === 'string' ? new Worker(urlOrWorker) : urlOrWorker;
  const pending = new Map();
  let nextId = 1;
  // A worker whose script failed to load never answers: once it has failed
  // (before it was adopted here too: index.html keeps loadError), every
  // call gets the failure at once instead of a promise that never settles.
  const failure = (message) => ({ ok: false, error: { status: 'internal', path: '', message } });
  let broken = worker.loadError ? failure(worker.loadError) : null;
  worker.onmessage = (event) => {
    const resolve = pending.get(event.data.id);
    if (resolve) {
      pending.delete(event.data.id);
      resolve(event.data);
    }
  };
  worker.onerror = (event) => {
    broken = failure(event.message || 'the WebAssembly core did not load');
    for (const [id, resolve] of pending) resolve({ id, ...broken });
    pending.clear();
  };
  /** @returns {Promise<{id: number, ok: boolean, result?: any, error?: any}>} */
  return (message, transfer = []) => {
    const id = nextId++;
    if (broken) return Promise.resolve({ id, ...broken });
    return new Promise((resolve) => {
      pending.set(id, resolve);
      worker.postMessage({ id, ...message }, transfer);
    });
  };
}

export function defaultWorkerCount() {
  const cores = (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 1;
  return Math.max(1, Math.min(MAX_WORKERS, cores));
}

/** workerCount: the search workers (the estimate's worker comes on top).
 * firstWorker: a worker already started on workerUrl (index.html starts one
 * before the page's script loads), used as the estimate's worker. */
export function createEngine(workerUrl = 'wasm/worker.js', workerCount = defaultWorkerCount(), firstWorker = null) {
  const estimator = connect(firstWorker || workerUrl);
  // The search workers start with the first search, sweep or fit, so that
  // loading their cores does not slow the first estimate down.
  const workers = [];
  const startAll = () => {
    while (workers.length < workerCount) workers.push(connect(workerUrl));
    return workers;
  };
  let searches = 0; // the latest search's number: older ones stop taking parts

  /** A search over every worker; onProgress({done, total, candidates}) after each part. */
  async function splitSearch(document, onProgress) {
    startAll();
    const mine = ++searches;
    const total = workers.length * PARTS_PER_WORKER;
    const bytes = new Array(total);
    let next = 0, done = 0, candidates = 0, failed = null;
    const cancelled = { ok: false, error: { status: 'cancelled', path: '', message: 'a newer search started' } };
    async function drain(call) {
      while (next < total && failed === null && mine === searches) {
        const part = next++;
        const reply = await call({ op: 'searchPart', config: document, part, parts: total });
        if (!reply.ok) {
          failed = failed || reply;
          return;
        }
        bytes[part] = reply.result.bytes;
        done += 1;
        candidates += reply.result.info.counts.candidates;
        onProgress?.({ done, total, candidates });
      }
    }
    await Promise.all(workers.map(drain));
    if (failed) return failed;
    if (done < total) return cancelled;
    return workers[0]({ op: 'searchMerge', config: document, parts: bytes }, bytes.map((b) => b.buffer));
  }

  /** A sweep split in one shard per worker (its points i mod n), merged
   * by the core as `trainplan sweep --merge` does; onProgress({done, total})
   * after each shard. */
  async function sweep(document, onProgress) {
    startAll();
    const total = workers.length;
    let done = 0;
    const replies = await Promise.all(workers.map((call, shard) =>
      call({ op: 'sweep', config: document, shard, shards: total }).then((reply) => {
        done += 1;
        onProgress?.({ done, total });
        return reply;
      })));
    const failed = replies.find((r) => !r.ok);
    if (failed) return failed;
    if (total === 1) return replies[0];
    return workers[0]({ op: 'sweepMerge', outputs: replies.map((r) => r.result) });
  }

  // The estimate is a pure function of its config: a call with the same
  // config as the one before gets that call's reply. main.js asks for the
  // page's first estimate before the page renders, and the page's own
  // first request then finds it under way.
  let lastEstimate = { text: '', reply: null };
  function estimate(config) {
    const text = JSON.stringify(config);
    if (text !== lastEstimate.text) lastEstimate = { text, reply: estimator({ op: 'estimate', config }) };
    return lastEstimate.reply;
  }

  return {
    workers: workerCount,
    sweep,
    estimate,
    search: (document, onProgress) => (workerCount > 1
      ? splitSearch(document, onProgress)
      : startAll()[0]({ op: 'search', config: document })),
    /** Stops the running split search: its parts not yet started are not
     * run, and its promise gives the 'cancelled' reply. */
    cancelSearch: () => {
      searches += 1;
    },
    grid: (configs) => estimator({ op: 'grid', configs }),
    /** trainplan calibrate on a runs document (a fit: in a search worker,
     * so that the estimate does not wait for it), and calibrate-log on a log
     * excerpt: off the main thread, so that the page stays responsive. */
    calibrate: (document) => startAll()[0]({ op: 'calibrate', config: document }),
    calibrateLog: (text) => estimator({ op: 'calibrateLog', text }),
    presets: () => estimator({ op: 'presets' }),
  };
}
