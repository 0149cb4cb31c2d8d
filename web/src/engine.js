// engine.js: the only module that talks to the WebAssembly core. The core
// runs in a classic web worker (static/wasm/worker.js); calls are
// promises tagged with ids, and a caller can ask whether a reply is still the
// latest so stale replies are dropped.

export function createEngine(workerUrl = 'wasm/worker.js') {
  const worker = new Worker(workerUrl);
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
  function call(op, config) {
    const id = nextId++;
    return new Promise((resolve) => {
      pending.set(id, resolve);
      worker.postMessage({ id, op, config });
    });
  }
  return {
    estimate: (config) => call('estimate', config),
    search: (document) => call('search', document),
    presets: () => call('presets'),
  };
}
