// helpers.mjs: shared by the Node-run tests: paths, the native CLI, and the
// WebAssembly core loaded in Node.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI = join(ROOT, 'build', 'trainplan');


/** `trainplan estimate -` where the config may be refused: {ok, result}
 * or {ok: false, error} with the CLI's one-line "path: reason". */
export function cliTryEstimate(config) {
  try {
    const out = execFileSync(CLI, ['estimate', '-'], { input: JSON.stringify(config), stdio: ['pipe', 'pipe', 'pipe'] });
    return { ok: true, result: JSON.parse(out.toString()) };
  } catch (e) {
    return { ok: false, error: e.stderr.toString().trim().replace(/^trainplan: error: /, '') };
  }
}

/** Runs `trainplan estimate -` on a config object; returns the output
 * document, and throws the CLI's error where it refuses the config. */
export function cliEstimate(config) {
  const run = cliTryEstimate(config);
  if (!run.ok) throw new Error(run.error);
  return run.result;
}

/** Runs `trainplan search -` on a document; returns the output document. */
export function cliSearch(document) {
  const out = execFileSync(CLI, ['search', '-'], { input: JSON.stringify(document) });
  return JSON.parse(out.toString());
}

/** Runs `trainplan sweep -` (with extra arguments, e.g. --shard i/n) on a
 * document; returns the output document. */
export function cliSweep(document, ...args) {
  const out = execFileSync(CLI, ['sweep', '-', ...args], { input: JSON.stringify(document) });
  return JSON.parse(out.toString());
}

/** Runs `trainplan calibrate -` on a runs document; returns the output document. */
export function cliCalibrate(document) {
  const out = execFileSync(CLI, ['calibrate', '-'], { input: JSON.stringify(document) });
  return JSON.parse(out.toString());
}

/** The release WebAssembly core in Node (wasm/out), through wasm/trainplan.js. */
export async function loadWasm() {
  const require = createRequire(import.meta.url);
  const createTrainplan = require(join(ROOT, 'wasm', 'out', 'trainplan-core.js'));
  const { load } = require(join(ROOT, 'wasm', 'trainplan.js'));
  // Emscripten 3.1.6 would fetch() a file path under Node 18+; hand it the bytes.
  const wasmBinary = readFileSync(join(ROOT, 'wasm', 'out', 'trainplan-core.wasm'));
  return load(createTrainplan, { wasmBinary });
}

/** Fujii et al. 2024's estimated-memory rows as config documents. */
export function seed003Configs() {
  const lines = readFileSync(join(ROOT, 'tests', 'golden', 'seed003_estimated_memory.csv'), 'utf8').trim().split('\n');
  const gpu = { 'A100-40GB': 'a100-40gb', 'H100-94GB': 'h100-94gb' };
  return lines.slice(1).map((line) => {
    const [, model, seq, g, gpus, tp, cp, pp, mbs, gbs] = line.split(',');
    return {
      model: { preset: model },
      system: { gpu: gpu[g], gpus: +gpus },
      training: { seq_len: +seq, global_batch: +gbs, micro_batch: +mbs },
      parallel: { tp: +tp, cp: +cp, pp: +pp },
    };
  });
}
