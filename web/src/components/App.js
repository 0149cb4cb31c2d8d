// App: owns the store, the URL and the calls to the engine, and lays the
// page out answer first: the results (headline figures, the fit banner, the
// memory and step-time charts) beside the form, where they stay in view on a
// wide screen and come first on a phone; the details, search, what-ifs and
// calibration follow, each one click away in the top navigation. In an embed
// (?embed=1) it drops the header, navigation, footer, share panel, search
// and what-ifs, folds the inputs under the results (read-only with
// ?lock=1), and posts its height to the page around it.
import { html } from 'htm/preact';
import { useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { reducer } from '../state.js';
import { toConfig, toSearchDocument } from '../fields.js';
import { encodeHash } from '../url.js';
import { memoryLimit, resultFits } from '../fit.js';
import { Inputs } from './Inputs.js';
import { MemoryChart } from './MemoryChart.js';
import { FitBanner, StageTable } from './StageTable.js';
import { ConfigJson } from './ConfigJson.js';
import { Export } from './Export.js';
import { Compare } from './Compare.js';
import { Heatmap } from './Heatmap.js';
import { LineItems } from './LineItems.js';
import { BestFit, Headline, TimeChart } from './Performance.js';
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
  // The config whose estimate is shown: while a newer one is pending, the
  // figures shown belong to other inputs and are dimmed.
  const shownText = useRef(initial.result || initial.error ? configText : '');
  useEffect(() => {
    const seq = ++latest.current;
    engine.estimate(config).then((reply) => {
      if (seq !== latest.current) return;
      shownText.current = configText;
      dispatch({ type: 'estimated', reply });
    });
  }, [configText]);
  const pending = shownText.current !== configText;

  // The pinned configuration is estimated again when it comes from a link.
  const pinnedText = state.pinned ? JSON.stringify(toConfig(state.pinned)) : '';
  useEffect(() => {
    if (!pinnedText || state.pinnedResult) return;
    engine.estimate(JSON.parse(pinnedText)).then((reply) => dispatch({ type: 'pinnedEstimated', reply }));
  }, [pinnedText]);

  // The search ignores the plan fields, so it reruns only when the model,
  // hardware, training or its own constraints change.
  const searchText = JSON.stringify(toSearchDocument(state.inputs, state.presets));
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

  // An embed tells the page around it how tall it is, so the iframe can
  // fit its content instead of scrolling inside a fixed height.
  useEffect(() => {
    if (!embed || window.parent === window) return undefined;
    const post = () => window.parent.postMessage(
      { type: 'trainplan-resize', height: Math.ceil(document.body.getBoundingClientRect().height) }, '*');
    const observer = new ResizeObserver(post);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, []);

  const { result, error } = state;
  const limit = memoryLimit(state.inputs);
  const fits = result !== null && resultFits(result, limit);
  // the best plan that fits, offered beside a plan that does not: the
  // search's first the form can express (not AMSP), once the search for
  // these inputs is in and valid
  const bestFit = !embed && !state.searching && !state.searchError
    && state.search?.plans.find((p) => p.plan.sharding !== 'amsp');
  const apply = (plan) => {
    dispatch({ type: 'applyPlan', plan });
    showSection('results');
  };
  const inputs = html`<${Inputs} inputs=${state.inputs} presets=${state.presets} error=${error} locked=${locked}
    onChange=${(key, value) => dispatch({ type: 'setField', key, value })}
    onImport=${(fields) => dispatch({ type: 'importModel', fields })} />`;
  return html`
    <a class="skip-link" href="#results" onClick=${(e) => { e.preventDefault(); showSection('results'); }}>
      Skip to the results</a>
    ${embed
      ? html`<p class="embed-bar" data-testid="embed-bar"><strong>trainplan</strong>${locked ? ' · read-only' : ''} ·${' '}
          <a href=${location.pathname + hash} target="_blank" rel="noopener">Open in trainplan ↗</a></p>`
      : html`<header>
      <h1>trainplan</h1>
      <p>Will it fit, how fast will it run, and which plan is best? Per-GPU memory of every pipeline stage, the step time with its breakdown, and a search of every plan.</p>
      <${Share} hash=${hash} />
    </header>
    <${Nav} />`}
    ${state.linkProblems.length > 0 && html`<p class="notice" role="status">${state.linkProblems.join('; ')}</p>`}
    <main id="estimator" class="estimator">
      <section id="results" class="results" tabindex="-1" aria-label="Results" aria-live="polite">
        ${error && html`<p class="error" role="alert" data-testid="error">
          <strong>${error.path || 'input'}</strong>: ${error.message}</p>`}
        ${state.pinned && html`<${Compare} pinned=${state.pinned} pinnedResult=${state.pinnedResult}
          pinnedError=${state.pinnedError} inputs=${state.inputs} result=${result}
          onPin=${() => dispatch({ type: 'pin' })} onUnpin=${() => dispatch({ type: 'unpin' })} />`}
        ${result && html`
          <div class=${error || pending ? 'stale' : ''} data-testid="estimate" data-pending=${pending}>
            <${Headline} result=${result} fits=${fits} />
            <${FitBanner} result=${result} limit=${limit} />
            ${!fits && html`<${BestFit} best=${bestFit} searching=${!!state.searching} embed=${embed}
              gpus=${result.config.system.gpus} limit=${limit} onApply=${apply} />`}
            <div class="charts">
              <${MemoryChart} result=${result} limit=${limit} />
              <${TimeChart} result=${result} />
            </div>
            ${!state.pinned && !embed && html`<p class="compare-actions" id="compare"><button type="button" data-testid="pin"
              disabled=${!!error} onClick=${() => dispatch({ type: 'pin' })}>Pin to compare</button>
              <small>Keeps these figures beside the next ones you try.</small></p>`}
            <p class="more-link"><a href="#details" onClick=${(e) => { e.preventDefault(); showSection('details'); }}>
              Memory by stage, how each figure is counted${embed ? '' : ', what-if, export'} ↓</a></p>
          </div>`}
      </section>
      ${embed
        ? html`<details class="embed-inputs" data-testid="embed-inputs"><summary>${locked ? 'The inputs (read-only)' : 'Change the inputs'}</summary>${inputs}</details>`
        : inputs}
    </main>
    ${result && html`<section id="details" class=${'details' + (error || pending ? ' stale' : '')} aria-label="Details of the estimate">
      <${StageTable} result=${result} />
      ${!embed && html`<div id="whatif"><${Heatmap} inputs=${state.inputs} estimateGrid=${engine.grid} limit=${limit} /></div>`}
      ${settled && !embed && html`
        <${LineItems} result=${result} />
        <${ConfigJson} config=${result.config} />
        <div id="export"><${Export} result=${result} /></div>`}
    </section>`}
    ${!embed && settled && html`<${Search} inputs=${state.inputs} search=${state.search} error=${state.searchError} ms=${state.searchMs}
      searching=${state.searching} workers=${engine.workers}
      presets=${state.presets} onChange=${(key, value) => dispatch({ type: 'setField', key, value })}
      onApply=${apply} onCancel=${() => engine.cancelSearch()} />`}
    ${!embed && settled && html`<${Sweep} inputs=${state.inputs} engine=${engine} presets=${state.presets} />`}
    ${!embed && settled && html`<div id="calibrate"><${Calibrate} calibration=${state.calibration} inputs=${state.inputs} engine=${engine}
      dispatch=${dispatch} /></div>`}
    ${!embed && html`<${References} />`}
    ${!embed && html`<footer>trainplan ${state.version} · estimates run in your browser (WebAssembly); nothing is sent anywhere.</footer>`}
  `;
}

/** The page's sections, one click each. The URL's hash holds the inputs, so
 * these links scroll by script instead of changing it. */
const SECTIONS = [
  ['results', 'Estimate'], ['search', 'Search'], ['whatif', 'What-if'], ['sweep', 'Hardware'],
  ['compare', 'Compare'], ['export', 'Export'], ['calibrate', 'Calibrate'],
];

/** How long a section the navigation jumped to is held in place. */
const HOLD_IN_VIEW_MS = 2000;

function Nav() {
  return html`<nav class="top-nav" aria-label="Sections" data-testid="nav">
    ${SECTIONS.map(([id, label]) => html`<a href=${`#${id}`} data-section=${id}
      onClick=${(e) => { e.preventDefault(); showSection(id); }}>${label}</a>`)}
  </nav>`;
}

/** Scrolls the section with this id into view, opening it where it is a
 * folded panel, and moves the keyboard focus to it. A section in the
 * results column scrolls the page to the column's grid area (main): while
 * the column sticks, its own box is wherever the page has scrolled to. */
function showSection(id) {
  const target = document.getElementById(id);
  if (!target) return;
  const folded = target.matches('details') ? target : target.querySelector(':scope > details');
  if (folded) folded.open = true;
  if (target.closest('#results')) {
    document.getElementById('estimator').scrollIntoView({ block: 'start' });
    target.scrollIntoView({ block: 'nearest' }); // within the column, when it scrolls on its own
  } else {
    target.scrollIntoView({ block: 'start' });
    holdInView(target);
  }
  if (!target.hasAttribute('tabindex') && !target.matches('a, button, input, select')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
}

/** Keeps a section the page jumped to where it landed while what is above
 * it finishes drawing (a search's table, the what-if map): for a moment,
 * each change of the page's height scrolls by what the section moved. Not
 * for the sticky results column, which the page's scroll does not move. */
function holdInView(target) {
  const landed = target.getBoundingClientRect().top;
  const follow = new ResizeObserver(() => {
    const moved = target.getBoundingClientRect().top - landed;
    if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
  });
  follow.observe(document.body);
  setTimeout(() => follow.disconnect(), HOLD_IN_VIEW_MS);
}
