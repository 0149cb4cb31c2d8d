// state.js: the page's one store. Inputs (as the fields' text), the presets
// the core knows, the latest result or error, and problems found in the link.
// View-only state (hover, open panels) stays in components.
import { decodeHash } from './url.js';

export function initialState(hash) {
  const { inputs, problems } = decodeHash(hash);
  return { inputs, linkProblems: problems, presets: null, version: '', result: null, error: null };
}

export function reducer(state, action) {
  switch (action.type) {
    case 'setField':
      return { ...state, inputs: { ...state.inputs, [action.key]: action.value } };
    case 'loadHash': {
      const { inputs, problems } = decodeHash(action.hash);
      return { ...state, inputs, linkProblems: problems };
    }
    case 'presets':
      return { ...state, presets: action.presets, version: action.version };
    case 'estimated':
      return action.reply.ok
        ? { ...state, result: action.reply.result, error: null }
        : { ...state, error: action.reply.error };
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}
