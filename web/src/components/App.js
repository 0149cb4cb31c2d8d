// App: owns the store, the URL and the calls to the engine. In an embed
// (?embed=1) it drops the header, footer, share panel and search, and with
// ?lock=1 the inputs are read-only.
import { html } from 'htm/preact';
import { useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { reducer } from '../state.js';
import { toConfig, toSearchDocument } from '../fields.js';
import { encodeHash } from '../url.js';
import { Inputs } from './Inputs.js';
import { MemoryChart } from './MemoryChart.js';
import { StageTable } from './StageTable.js';
import { ConfigJson } from './ConfigJson.js';
import { Export } from './Export.js';
import { Compare } from './Compare.js';
import { Heatmap } from './Heatmap.js';
import { LineItems } from './LineItems.js';
import { Headline, TimeChart } from './Performance.js';
import { Search } from './Search.js';
import { Sweep } from './Sweep.js';
import { Calibrate } from './Calibrate.js';
import { Share } from './Share.js';
import { References } from './References.js';

/** initial: the store as the page's link gives it (state.js initialState). */
export function App({ engine, initial, embed = false, locked = false }) {
  const [state, dispatch] = useReducer(reducer, initial);
  const latest = useRef(0);

  useEffect(() => {
    engine.presets().then((reply) => {
      if (reply.ok) dispatch({ type: 'presets', presets: reply.result.presets, version: reply.result.version });
    });
    const onHash = () => dispatch({ type: 'loadHash', hash: location.hash });
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, [engine]);

  const config = toConfig(state.inputs);
  const configText = JSON.stringify(config);
  const hash = encodeHash(state.inputs, state.pinned);
  useEffect(() => {
    if (hash !== location.hash) history.replaceState(null, '', hash);
  }, [hash]);
  useEffect(() => {
    const seq = ++latest.current;
    engine.estimate(config).then((reply) => {
      if (seq === latest.current) dispatch({ type: 'estimated', reply });
    });
  }, [configText]);

  // The pinned configuration is estimated again when it comes from a link.
  const pinnedText = state.pinned ? JSON.stringify(toConfig(state.pinned)) : '';
  useEffect(() => {
    if (!pinnedText || state.pinnedResult) return;
    engine.estimate(JSON.parse(pinnedText)).then((reply) => dispatch({ type: 'pinnedEstimated', reply }));
  }, [pinnedText]);

  // The search ignores the plan fields, so it reruns only when the model,
  // hardware, training or its own constraints change.
  const searchText = JSON.stringify(toSearchDocument(state.inputs));
  // It starts once the first estimate is in, so that the first result does
  // not share the cores with it.
  const estimated = state.result !== null || state.error !== null;
  const latestSearch = useRef(0);
  useEffect(() => {
    if (embed || !estimated) return;
    const seq = ++latestSearch.current;
    const start = performance.now();
    dispatch({ type: 'searchStarted' });
    const onProgress = (progress) => {
      if (seq === latestSearch.current) dispatch({ type: 'searchProgress', progress });
    };
    engine.search(JSON.parse(searchText), onProgress).then((reply) => {
      if (seq !== latestSearch.current) return;
      if (!reply.ok && reply.error.status === 'cancelled') dispatch({ type: 'searchCancelled' });
      else dispatch({ type: 'searched', reply, ms: performance.now() - start });
    });
  }, [searchText, estimated]);

  // What lies below the first result (line items, config, exports, the
  // search and sweep panels) renders once that result has been painted, so
  // the first figures and charts do not wait for the rest of the page.
  const [settled, setSettled] = useState(false);
  useEffect(() => {
    if (estimated && !settled) requestAnimationFrame(() => setTimeout(() => setSettled(true)));
  }, [estimated]);

  const { result, error } = state;
  return html`
    ${embed
      ? html`<p class="embed-bar" data-testid="embed-bar"><strong>trainplan</strong>${locked ? ' · read-only' : ''} ·
          <a href=${location.pathname + hash} target="_blank" rel="noopener">Open in trainplan ↗</a></p>`
      : html`<header>
      <h1>trainplan</h1>
      <p>Will it fit, how fast will it run, and which plan is best? Per-GPU memory of every pipeline stage, the step time with its breakdown, and a search of every plan.</p>
      <${Share} hash=${hash} />
    </header>`}
    ${state.linkProblems.length > 0 && html`<p class="notice" role="status">${state.linkProblems.join('; ')}</p>`}
    <main>
      <${Inputs} inputs=${state.inputs} presets=${state.presets} error=${error} locked=${locked}
        onChange=${(key, value) => dispatch({ type: 'setField', key, value })}
        onImport=${(fields) => dispatch({ type: 'importModel', fields })} />
      <section class="results" aria-live="polite">
        ${error && html`<p class="error" role="alert" data-testid="error">
          <strong>${error.path || 'input'}</strong>: ${error.message}</p>`}
        ${state.pinned && html`<${Compare} pinned=${state.pinned} pinnedResult=${state.pinnedResult}
          pinnedError=${state.pinnedError} inputs=${state.inputs} result=${result}
          onPin=${() => dispatch({ type: 'pin' })} onUnpin=${() => dispatch({ type: 'unpin' })} />`}
        ${result && html`
          <div class=${error ? 'stale' : ''} data-testid="estimate">
            ${!state.pinned && html`<p class="compare-actions"><button type="button" data-testid="pin"
              disabled=${!!error} onClick=${() => dispatch({ type: 'pin' })}>Pin to compare</button>
              <small>Keeps these figures beside the next ones you try.</small></p>`}
            <${Headline} result=${result} />
            <${StageTable} result=${result} />
            <div class="charts">
              <${MemoryChart} result=${result} />
              <${TimeChart} result=${result} />
            </div>
            <${Heatmap} inputs=${state.inputs} estimateGrid=${engine.grid} />
            ${settled && html`
              <${LineItems} result=${result} />
              <${ConfigJson} config=${result.config} />
              <${Export} result=${result} />`}
          </div>`}
      </section>
    </main>
    ${!embed && settled && html`<${Search} inputs=${state.inputs} search=${state.search} error=${state.searchError} ms=${state.searchMs}
      searching=${state.searching} workers=${engine.workers}
      presets=${state.presets} onChange=${(key, value) => dispatch({ type: 'setField', key, value })}
      onApply=${(plan) => { dispatch({ type: 'applyPlan', plan }); scrollTo({ top: 0, behavior: 'smooth' }); }}
      onCancel=${() => engine.cancelSearch()} />`}
    ${!embed && settled && html`<${Sweep} inputs=${state.inputs} engine=${engine} />`}
    ${!embed && settled && html`<${Calibrate} calibration=${state.calibration} inputs=${state.inputs} engine=${engine}
      dispatch=${dispatch} />`}
    ${!embed && html`<${References} />`}
    ${!embed && html`<footer>trainplan ${state.version} · estimates run in your browser (WebAssembly); nothing is sent anywhere.</footer>`}
  `;
}
