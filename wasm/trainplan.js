/*
 * trainplan.js: the only JavaScript that touches the Emscripten Module.
 *
 *   const tp = await Trainplan.load(createTrainplan);
 *   tp.estimate(config)  -> the output document (object), or throws
 *                           TrainplanError {status, path, message}
 *   tp.search(document)  -> the search output (plans, pareto, counts, ...),
 *                           or throws TrainplanError
 *   tp.searchPart(document, part, parts)
 *                        -> {info: {part, parts, counts}, bytes}: one part
 *                           of the search split `parts` ways (core
 *                           tp_search_part); bytes is the part's result
 *   tp.searchMerge(document, [bytes, ...])
 *                        -> the search output of tp.search(document), from
 *                           all the parts' bytes (any worker's, same module)
 *   tp.sweep(document, shard = 0, shards = 1)
 *                        -> trainplan sweep's output for a config with a
 *                           "sweep" section (one shard of it when split)
 *   tp.sweepMerge([output, ...])
 *                        -> the whole sweep from every shard's output
 *                           (objects or their JSON text), as sweep --merge
 *   tp.calibrate(document) -> trainplan calibrate's output for a runs
 *                           document (docs/calibrate.md)
 *   tp.calibrateLog(text) -> what a training log excerpt says of its run
 *                           (trainplan calibrate-log's output)
 *   tp.presets()         -> {models: [...], gpus: [...]}
 *   tp.memory()          -> {inUseBytes, heapBytes}: what the core's allocator
 *                           has handed out, and the module's memory size
 *   tp.version()         -> "0.1.0"
 *
 * Strings cross the boundary as UTF-8 in memory the wrapper allocates and
 * frees; every string the core returns is freed with tp_wasm_free. A plain
 * script (no ES module syntax) so a classic worker can importScripts it and
 * Node can require it.
 */
(function (root) {
  'use strict';

  class TrainplanError extends Error {
    /** @param {{status: string, path: string, message: string}} e */
    constructor(e) {
      super(e.path ? `${e.path}: ${e.message}` : e.message);
      this.name = 'TrainplanError';
      this.status = e.status;
      this.path = e.path;
      this.reason = e.message;
    }
  }

  /** Calls a core function that returns a malloc'd JSON string. */
  function takeJson(Module, ptr) {
    if (ptr === 0) throw new TrainplanError({ status: 'nomem', path: '', message: 'out of memory' });
    try {
      return JSON.parse(Module.UTF8ToString(ptr));
    } finally {
      Module._tp_wasm_free(ptr);
    }
  }

  function withCString(Module, text, fn) {
    const size = Module.lengthBytesUTF8(text) + 1;
    const ptr = Module._malloc(size);
    if (ptr === 0) throw new TrainplanError({ status: 'nomem', path: '', message: 'out of memory' });
    try {
      Module.stringToUTF8(text, ptr, size);
      return fn(ptr);
    } finally {
      Module._free(ptr);
    }
  }

  /** A document as the core reads it: JSON text. */
  const asText = (document) => (typeof document === 'string' ? document : JSON.stringify(document));

  /** Runs an envelope-returning entry point on a document (with any extra
   * arguments after its text); unwraps it. */
  function call(Module, entry, document, ...args) {
    return unwrap(withCString(Module, asText(document), (ptr) => takeJson(Module, entry(ptr, ...args))));
  }

  /** Unwraps an envelope, throwing its error. */
  function unwrap(envelope) {
    if (!envelope.ok) throw new TrainplanError(envelope.error);
    return envelope.result;
  }

  /** Runs fn with `bytes` bytes of core memory, freed afterwards. */
  function withBuffer(Module, bytes, fn) {
    const ptr = Module._malloc(bytes);
    if (ptr === 0) throw new TrainplanError({ status: 'nomem', path: '', message: 'out of memory' });
    try {
      return fn(ptr);
    } finally {
      Module._free(ptr);
    }
  }

  /** @param {(opts?: object) => Promise<any>} createTrainplan the Emscripten factory */
  async function load(createTrainplan, options) {
    const Module = await createTrainplan(options || {});
    return {
      /** @param {object|string} config */
      estimate(config) {
        return call(Module, Module._tp_wasm_estimate, config);
      },
      /** @param {object|string} document a config with an optional "search" section */
      search(document) {
        return call(Module, Module._tp_wasm_search, document);
      },
      /** @param {object|string} document @param {number} part @param {number} parts */
      searchPart(document, part, parts) {
        const size = Module._tp_wasm_search_result_bytes();
        return withBuffer(Module, size, (out) => {
          const info = call(Module, Module._tp_wasm_search_part, document, part, parts, out);
          return { info, bytes: Module.HEAPU8.slice(out, out + size) };
        });
      },
      /** @param {object|string} document @param {Uint8Array[]} parts */
      searchMerge(document, parts) {
        const size = Module._tp_wasm_search_result_bytes();
        if (parts.length === 0 || parts.some((b) => b.length !== size)) {
          throw new TrainplanError({ status: 'invalid', path: 'parts', message: `each part must be ${size} bytes from this core` });
        }
        return withBuffer(Module, size * parts.length, (all) => {
          parts.forEach((bytes, i) => Module.HEAPU8.set(bytes, all + i * size));
          return call(Module, Module._tp_wasm_search_merge, document, all, parts.length);
        });
      },
      /** @param {object|string} document @param {number} shard @param {number} shards */
      sweep(document, shard = 0, shards = 1) {
        return call(Module, Module._tp_wasm_sweep, document, shard, shards);
      },
      /** @param {(object|string)[]} outputs every shard's sweep output */
      sweepMerge(outputs) {
        // one buffer of NUL-terminated texts; no text holds a NUL (JSON escapes it)
        const joined = outputs.map(asText).join('\0');
        return call(Module, Module._tp_wasm_sweep_merge, joined, outputs.length);
      },
      /** @param {object|string} document a runs document (docs/calibrate.md) */
      calibrate(document) {
        return call(Module, Module._tp_wasm_calibrate, document);
      },
      /** @param {string} text a training log excerpt (Megatron-LM, NeMo, torchtitan, llm-foundry) */
      calibrateLog(text) {
        if (typeof text !== 'string') {
          throw new TrainplanError({ status: 'invalid', path: 'log', message: 'must be text' });
        }
        return call(Module, Module._tp_wasm_calibrate_log, text);
      },
      presets() {
        return takeJson(Module, Module._tp_wasm_presets());
      },
      version() {
        return Module.UTF8ToString(Module._tp_wasm_version());
      },
      memory() {
        return { inUseBytes: Module._tp_wasm_heap_in_use(), heapBytes: Module.HEAPU8.length };
      },
    };
  }

  const api = { load, TrainplanError };
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.Trainplan = api;
})(typeof self !== 'undefined' ? self : this);
