// state.js: the page's one store. Inputs (as the fields' text), the presets
// the core knows, the latest result or error, a pinned configuration to
// compare with (its inputs, which the link carries, and its estimate),
// and problems found in the link.
// View-only state (hover, open panels) stays in components.
import { decodeHash } from './url.js';
import { withModel, withPlan } from './fields.js';
import { noCalibration } from './calibration.js';

export function initialState(hash) {
  const { inputs, pinned, problems } = decodeHash(hash);
  return { inputs, pinned, pinnedResult: null, pinnedError: null, linkProblems: problems, presets: null, version: '', result: null,
    error: null, search: null, searchError: null, searchMs: 0, searching: null };
}

export function reducer(state, action) {
  switch (action.type) {
    case 'setField':
      return { ...state, inputs: withField(state.inputs, action.key, action.value, state.presets) };
    case 'loadHash': {
      const { inputs, pinned, problems } = decodeHash(action.hash);
      return { ...state, inputs, pinned, pinnedResult: null, pinnedError: null, linkProblems: problems };
    }
    case 'presets':
      return { ...state, presets: action.presets, version: action.version };
    case 'pin':
      return { ...state, pinned: state.inputs, pinnedResult: state.result, pinnedError: null };
    case 'unpin':
      return { ...state, pinned: null, pinnedResult: null, pinnedError: null };
    case 'pinnedEstimated':
      return { ...state, pinnedResult: action.reply.ok ? action.reply.result : null,
        pinnedError: action.reply.ok ? null : action.reply.error };
    case 'importModel':
      return { ...state, inputs: withModel(state.inputs, action.fields) };
    case 'applyPlan':
      return { ...state, inputs: withPlan(state.inputs, action.plan) };
    case 'searchStarted':
      return { ...state, searching: { done: 0, total: 0, candidates: 0 } };
    case 'searchProgress':
      return { ...state, searching: action.progress };
    case 'searchCancelled':
      return { ...state, searching: null };
    case 'searched':
      return action.reply.ok
        ? { ...state, search: action.reply.result, searchError: null, searchMs: action.ms, searching: null }
        : { ...state, searchError: action.reply.error, searching: null };
    case 'estimated':
      return action.reply.ok
        ? { ...state, result: action.reply.result, error: null }
        : { ...state, error: action.reply.error };
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}

/** Inputs with one field changed. Picking a cluster also fills in its GPU
 * and node size, which the user can still change (the core lets the other
 * system fields override the cluster's); picking a GPU or cluster drops a
 * calibrated cluster. */
function withField(inputs, key, value, presets) {
  const next = { ...inputs, [key]: value };
  // a calibrated cluster describes the GPU and cluster it was fitted on:
  // picking another drops it, as does cal=0 (its Remove button)
  if ((key === 'cal' && value === '0') || ((key === 'gpu' || key === 'cluster') && inputs[key] !== value)) {
    Object.assign(next, noCalibration());
  }
  const cluster = key === 'cluster' && presets?.clusters.find((c) => c.name === value);
  if (cluster) {
    next.gpu = cluster.gpu;
    next.gpn = String(cluster.gpus_per_node);
  }
  return next;
}
