// engine.js: the only module that talks to the WebAssembly core. The core
// runs in classic web workers (static/wasm/worker.js), one per core the
// browser offers (at most MAX_WORKERS); calls are promises of the worker's
// reply {ok, result} or {ok: false, error}.
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
  worker.onmessage = (event) => {
    const resolve = pending.get(event.data.id);
    if (resolve) {
      pending.delete(event.data.id);
      resolve(event.data);
    }
  };
  worker.onerror = (event) => {
    for (const [id, resolve] of pending) {
      resolve({ id, ok: false, error: { status: 'internal', path: '', message: event.message || 'worker failed' } });
    }
    pending.clear();
  };
  /** @returns {Promise<{id: number, ok: boolean, result?: any, error?: any}>} */
  return (message, transfer = []) => {
    const id = nextId++;
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

/** firstWorker: a worker already started on workerUrl (index.html starts
 * one before the page's script loads), used as worker 0. */
export function createEngine(workerUrl = 'wasm/worker.js', workerCount = defaultWorkerCount(), firstWorker = null) {
  // Worker 0 answers estimates; the others start with the first search, so
  // that loading their cores does not slow the first estimate down.
  const workers = [connect(firstWorker || workerUrl)];
  const startAll = () => {
    while (workers.length < workerCount) workers.push(connect(workerUrl));
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
    if (text !== lastEstimate.text) lastEstimate = { text, reply: workers[0]({ op: 'estimate', config }) };
    return lastEstimate.reply;
  }

  return {
    workers: workerCount,
    sweep,
    estimate,
    search: (document, onProgress) => (workerCount > 1
      ? splitSearch(document, onProgress)
      : workers[0]({ op: 'search', config: document })),
    /** Stops the running split search: its parts not yet started are not
     * run, and its promise gives the 'cancelled' reply. */
    cancelSearch: () => {
      searches += 1;
    },
    grid: (configs) => workers[0]({ op: 'grid', configs }),
    /** trainplan calibrate on a runs document, and calibrate-log on a log
     * excerpt: in the worker, so that a fit leaves the page responsive. */
    calibrate: (document) => workers[0]({ op: 'calibrate', config: document }),
    calibrateLog: (text) => workers[0]({ op: 'calibrateLog', text }),
    presets: () => workers[0]({ op: 'presets' }),
  };
}
