// state.js: the page's one store. Inputs (as the fields' text), the presets
// the core knows, the latest result or error, a pinned configuration to
// compare with (its inputs, which the link carries, and its estimate),
// problems found in the link, and the Calibrate panel's runs and fit.
// View-only state (hover, open panels, text being typed) stays in components.
import { decodeHash, unknownPresets } from './url.js';
import { describeError, withModel, withPlan } from './fields.js';
import { calibrationInputs, noCalibration } from './calibration.js';
import { newRun, withLog } from './calruns.js';

/** The Calibrate panel: its runs (calruns.js), whether the fit weighs the
 * shipped constants (prior), the fit's output or error, whether a fit is
 * running, and whether the runs changed since the fit. */
const NO_CALIBRATION = { runs: [], added: 0, prior: false, result: null, error: null, fitting: false, stale: false };

export function initialState(hash) {
  const { inputs, pinned, problems } = decodeHash(hash);
  return { inputs, pinned, pinnedResult: null, pinnedError: null, linkProblems: problems, presets: null, version: '', result: null,
    error: null, search: null, searchError: null, searchMs: 0, searching: null, calibration: NO_CALIBRATION };
}

/** The calibration with what a fit reads changed (its runs, its prior): a
 * fit from before is stale. */
function changed(calibration, changes) {
  return { ...calibration, ...changes, stale: calibration.result !== null || calibration.error !== null };
}

const withRuns = (calibration, runs) => changed(calibration, { runs });

function calibrationReducer(c, action) {
  switch (action.type) {
    case 'calAddRun':
      return { ...withRuns(c, [...c.runs, newRun(action.inputs, c.added + 1)]), added: c.added + 1 };
    case 'calEditRun':
      return withRuns(c, c.runs.map((r, i) => (i === action.index ? { ...r, ...action.changes } : r)));
    case 'calRemoveRun':
      return withRuns(c, c.runs.filter((_, i) => i !== action.index));
    case 'calPrior':
      return changed(c, { prior: action.prior });
    case 'calLogRead':
      return withRuns(c, c.runs.map((r, i) => {
        if (i !== action.index) return r;
        return action.reply.ok ? withLog(r, action.reply.result) : { ...r, logError: action.reply.error };
      }));
    case 'calFitStarted':
      return { ...c, fitting: true };
    case 'calFitted':
      return action.reply.ok
        ? { ...c, fitting: false, stale: false, result: action.reply.result, error: null }
        : { ...c, fitting: false, stale: false, result: null, error: action.reply.error };
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}

export function reducer(state, action) {
  switch (action.type) {
    case 'setField':
      return { ...state, inputs: withField(state.inputs, action.key, action.value, state.presets) };
    case 'loadHash': {
      const { inputs, pinned, problems } = decodeHash(action.hash);
      const loaded = { ...state, inputs, pinned, pinnedResult: null, pinnedError: null, linkProblems: problems };
      return state.presets ? withKnownPresets(loaded, state.presets) : loaded;
    }
    case 'presets':
      return withKnownPresets({ ...state, presets: action.presets, version: action.version }, action.presets);
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
    case 'calApply':
      return { ...state, inputs: { ...state.inputs, ...calibrationInputs(state.calibration.result) } };
    case 'calAddRun':
      return { ...state, calibration: calibrationReducer(state.calibration, { ...action, inputs: state.inputs }) };
    case 'calEditRun':
    case 'calRemoveRun':
    case 'calPrior':
    case 'calLogRead':
    case 'calFitStarted':
    case 'calFitted':
      return { ...state, calibration: calibrationReducer(state.calibration, action) };
    case 'estimated':
      return action.reply.ok
        ? { ...state, result: action.reply.result, error: null }
        : { ...state, error: describeError(action.reply.error, state.inputs) };
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}

/** The state with each preset name of its inputs and pin the core does
 * not list named in the link's problems and set to its default. Names can
 * only be checked once the core has listed its presets, and a link cut
 * inside one ("llama-3.1-") passes every shape check before. */
function withKnownPresets(state, presets) {
  const inputs = unknownPresets(state.inputs, presets, '');
  const pinned = state.pinned && unknownPresets(state.pinned, presets, 'pin.', state.inputs);
  return { ...state, inputs: inputs.inputs, pinned: pinned ? pinned.inputs : null,
    linkProblems: [...state.linkProblems, ...inputs.problems, ...(pinned ? pinned.problems : [])] };
}

/** Inputs with one field changed. Picking a cluster also fills in its GPU
 * and node size, which the user can still change (the core lets the other
 * system fields override the cluster's); picking a GPU or cluster drops a
 * calibrated cluster; picking a preset over an imported model drops it. */
function withField(inputs, key, value, presets) {
  // a preset picked over a named model (an import) replaces its sizes too
  if (key === 'model' && inputs.mname !== '') return { ...withModel(inputs, {}), model: value };
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
