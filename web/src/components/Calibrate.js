// Calibrate: "your cluster, not ours". The user adds runs measured on their
// cluster, each the page's current plan and what was measured of it (typed,
// or read from a pasted log excerpt by the core's log reader), and fits
// trainplan's physical parameters to them (trainplan calibrate, in the
// worker). It shows each parameter default → fitted, the runs' errors
// before and after the fit and left out, and a parity chart; Apply makes
// the calibrated cluster the page's own (calibration.js), for the estimate,
// the search and the link. The runs and the fit live in the store
// (state.js); only text being typed stays here.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { CAL_PARAMS } from '../calibration.js';
import { FIGURES, MEMORY_KINDS, PRIOR_WEIGHT, logSummary, parityRows, planLabel, runOfError, runsDocument } from '../calruns.js';
import { percent, seconds } from '../format.js';
import { CHART_STYLE, PlotFigure } from './PlotFigure.js';

const FIT_COLOURS = { before: '#9aa0ab', after: '#2f5fb3' };
const signed = (e) => (e === undefined ? '—' : `${e > 0 ? '+' : ''}${percent(e)}`);
const figure = (v) => (v === undefined ? '—' : Number(v.toPrecision(4)).toString());

function parityChart(Plot, { rows, extent }, width) {
  const size = Math.min(width, 480);
  return Plot.plot({
    width: size,
    height: Math.round(size * 0.85),
    style: CHART_STYLE,
    x: { label: 'Measured step time (s)', domain: extent, grid: true },
    y: { label: 'Predicted step time (s)', domain: extent, grid: true },
    color: { domain: ['before', 'after'], range: [FIT_COLOURS.before, FIT_COLOURS.after], legend: true },
    marks: [
      Plot.line([[extent[0], extent[0]], [extent[1], extent[1]]], { stroke: 'currentColor', strokeDasharray: '4 3',
        strokeOpacity: 0.6 }),
      Plot.text([[extent[1], extent[1]]], { text: () => 'y = x', textAnchor: 'end', dy: -8, fillOpacity: 0.7 }),
      Plot.dot(rows, { x: 'measured', y: 'predicted', stroke: 'fit', fill: 'fit', r: 4, fillOpacity: 0.6,
        channels: { run: 'name' }, tip: { format: { x: (v) => seconds(v), y: (v) => seconds(v), fill: true, stroke: false } } }),
    ],
  });
}

/** A run's log import: paste (or load) an excerpt, the core reads it. */
function RunLog({ run, index, onRead }) {
  const [text, setText] = useState('');
  const load = async (event) => {
    const file = event.currentTarget.files?.[0];
    if (file) setText(await file.slice(0, 16 * 1024 * 1024).text());
  };
  const id = `cal-log-${index}`;
  return html`<details class="cal-log" data-testid="cal-log">
    <summary>Read from a log${run.log ? ' ✓' : ''}</summary>
    <label for=${id}>Paste lines of the run's log (Megatron-LM, NeMo, torchtitan, llm-foundry)</label>
    <textarea id=${id} rows="4" spellcheck="false" value=${text} data-testid="cal-log-text"
      onInput=${(e) => setText(e.currentTarget.value)}></textarea>
    <p class="sweep-controls">
      <button type="button" data-testid="cal-log-read" disabled=${text.trim() === ''} onClick=${() => onRead(text)}>
        Read log</button>
      <label>or a file <input type="file" accept=".log,.txt,text/plain" onChange=${load} /></label></p>
    ${run.logError && html`<p class="error" role="alert" data-testid="cal-log-error">
      <strong>${run.logError.path}</strong>: ${run.logError.message}</p>`}
    ${run.log && html`<div role="status" data-testid="cal-log-summary"><small>${logSummary(run.log)}</small>
      <details><summary>Lines used</summary><pre class="cal-lines">${run.log.read.map((l) => `${l.line}: ${l.text}`)
        .join('\n')}</pre></details></div>`}
  </details>`;
}

/** One run: its label, plan, what was measured, and its log import. */
function RunRow({ run, index, error, onEdit, onRemove, onRead }) {
  const edit = (changes) => onEdit(index, changes);
  return html`<tbody data-testid="cal-run" class=${error ? 'invalid' : ''}>
    <tr>
      <th scope="row"><input type="text" size="26" aria-label=${`Run ${index + 1} name`} value=${run.name} maxlength="47"
        onInput=${(e) => edit({ name: e.currentTarget.value })} /></th>
      <td class="plan">${planLabel(run.inputs)}</td>
      <td><select aria-label=${`Run ${index + 1} figure`} data-testid="cal-figure" value=${run.figure}
          onChange=${(e) => edit({ figure: e.currentTarget.value })}>
          ${Object.entries(FIGURES).map(([k, label]) => html`<option value=${k}>${label}</option>`)}</select>
        <input type="text" inputmode="decimal" size="9" aria-label=${`Run ${index + 1} measured value`}
          data-testid="cal-value" value=${run.value} onInput=${(e) => edit({ value: e.currentTarget.value.trim() })} /></td>
      <td><input type="text" inputmode="decimal" size="6" aria-label=${`Run ${index + 1} peak memory, GiB`}
          data-testid="cal-memory" value=${run.memory} onInput=${(e) => edit({ memory: e.currentTarget.value.trim() })} />
        <select aria-label=${`Run ${index + 1} memory kind`} value=${run.memoryKind}
          onChange=${(e) => edit({ memoryKind: e.currentTarget.value })}>
          ${MEMORY_KINDS.map((k) => html`<option value=${k}>${k}</option>`)}</select></td>
      <td><button type="button" class="link" data-testid="cal-remove" onClick=${() => onRemove(index)}>Remove</button></td>
    </tr>
    <tr><td colspan="5" class="cal-run-more">
      ${error && html`<p class="error" role="alert">${error.path}: ${error.message}</p>`}
      <${RunLog} run=${run} index=${index} onRead=${onRead} /></td></tr>
  </tbody>`;
}

function Parameters({ parameters }) {
  const byPath = Object.fromEntries(parameters.map((p) => [p.name, p]));
  return html`<table data-testid="cal-params">
    <caption>Parameters: the runs' values (the presets') and the fitted ones</caption>
    <thead><tr><th scope="col">Parameter</th><th scope="col">Default</th><th scope="col">Fitted</th>
      <th scope="col">Determined</th><th scope="col">Sensitivity</th></tr></thead>
    <tbody>${CAL_PARAMS.map((cp) => {
      const p = byPath[cp.path];
      return p && html`<tr data-param=${cp.key} data-determined=${p.determined ? 1 : 0}>
        <th scope="row">${cp.label}</th><td>${figure(p.default)}</td>
        <td>${figure(p.fitted)}${p.standard_error !== undefined ? html` <small>± ${figure(p.standard_error)}</small>` : ''}</td>
        <td>${p.determined ? 'yes' : html`<small>${p.note}</small>`}</td><td>${p.sensitivity.toPrecision(2)}</td></tr>`;
    })}</tbody></table>`;
}

function Errors({ output }) {
  const memory = output.runs.some((r) => r.measured_memory_gib !== undefined);
  return html`<table data-testid="cal-errors">
    <caption>Step time of each run, measured and predicted (error: predicted / measured − 1)</caption>
    <thead><tr><th scope="col">Run</th><th scope="col">Measured</th><th scope="col">Before</th><th scope="col">After</th>
      <th scope="col">Left out</th><th scope="col">Error before</th><th scope="col">after</th><th scope="col">left out</th>
      ${memory && html`<th scope="col">Peak GiB</th><th scope="col">Memory error before</th><th scope="col">after</th>`}</tr></thead>
    <tbody>${output.runs.map((r, i) => html`<tr data-error-after=${r.error_after ?? ''}>
      <th scope="row">${r.name ?? `run ${i + 1}`}</th>
      <td>${r.measured_step_s === undefined ? '—' : seconds(r.measured_step_s)}</td>
      <td>${r.predicted_step_s_before === undefined ? '—' : seconds(r.predicted_step_s_before)}</td>
      <td>${r.predicted_step_s_after === undefined ? '—' : seconds(r.predicted_step_s_after)}</td>
      <td>${r.predicted_step_s_left_out === undefined ? '—' : seconds(r.predicted_step_s_left_out)}</td>
      <td>${signed(r.error_before)}</td><td>${signed(r.error_after)}</td><td>${signed(r.error_left_out)}</td>
      ${memory && html`<td>${figure(r.measured_memory_gib)}</td><td>${signed(r.memory_error_before)}</td>
        <td>${signed(r.memory_error_after)}</td>`}</tr>`)}</tbody></table>`;
}

function Result({ output, stale, applied, onApply }) {
  const mean = (key) => (output[key] === undefined ? '—' : percent(output[key]));
  const parity = parityRows(output);
  return html`<div data-testid="cal-result" class=${stale ? 'stale' : ''}>
    ${stale && html`<p class="notice">The runs changed since this fit: fit again to apply it.</p>`}
    <p data-testid="cal-summary">Mean step-time error: ${`before the fit ${mean('error_before')}, after ${mean('error_after')}`},
      each run left out of the fit ${mean('error_left_out')} (what to expect of a run not measured).</p>
    <${Parameters} parameters=${output.parameters} />
    <${Errors} output=${output} />
    ${parity.rows.length > 0 && html`<${PlotFigure} draw=${parityChart} data=${parity} testid="cal-parity"
      label="Predicted against measured step time, before and after the fit" />`}
    <p class="compare-actions"><button type="button" data-testid="cal-apply" disabled=${stale} onClick=${onApply}>
      Apply</button><small>${applied ? 'Applied: the estimate, the search and the link use the calibrated cluster.'
        : 'Makes the calibrated GPU and network the page\'s, for the estimate, the search and the link.'}</small></p>
  </div>`;
}

export function Calibrate({ calibration, inputs, engine, dispatch }) {
  const { runs, prior, result, error, fitting, stale } = calibration;
  const fit = async () => {
    dispatch({ type: 'calFitStarted' });
    dispatch({ type: 'calFitted', reply: await engine.calibrate(runsDocument(runs, prior)) });
  };
  const read = async (index, text) => dispatch({ type: 'calLogRead', index, reply: await engine.calibrateLog(text) });
  const errorRun = runOfError(error);
  const applied = result !== null && inputs.cal === '1';
  return html`<section class="calibrate" data-testid="calibrate" aria-labelledby="calibrate-title">
    <h2 id="calibrate-title">Calibrate to your cluster</h2>
    <p>Add runs you measured on this GPU and cluster: set the form to a run's model and plan, add it, then type
      what was measured or read it from the run's log. Fitting tunes trainplan's efficiencies, latencies and
      overheads to your runs (<code>trainplan calibrate</code>); Apply then makes the calibrated cluster the page's.</p>
    <p class="compare-actions"><button type="button" data-testid="cal-add" onClick=${() => dispatch({ type: 'calAddRun' })}>
      Add the current plan as a run</button><small>${planLabel(inputs)}</small></p>
    ${runs.length > 0 && html`<table class="cal-runs" data-testid="cal-runs">
      <thead><tr><th scope="col">Run</th><th scope="col">Plan</th><th scope="col">Measured</th>
        <th scope="col">Peak memory (GiB)</th><th scope="col"></th></tr></thead>
      ${runs.map((run, i) => html`<${RunRow} run=${run} index=${i} error=${i === errorRun ? error : null}
        onEdit=${(index, changes) => dispatch({ type: 'calEditRun', index, changes })}
        onRemove=${(index) => dispatch({ type: 'calRemoveRun', index })} onRead=${(text) => read(i, text)} />`)}
    </table>
    <p><label><input type="checkbox" data-testid="cal-prior" checked=${prior}
        onChange=${(e) => dispatch({ type: 'calPrior', prior: e.currentTarget.checked })} />
      Weigh trainplan's constants against the runs</label> <small>advised for a handful of runs: three runs that
      agree with each other need not agree with the rest of the cluster (prior_weight ${PRIOR_WEIGHT})</small></p>
    <p><button type="button" data-testid="cal-fit" disabled=${fitting} onClick=${fit}>Fit</button>
      ${fitting && html` <span role="status">Fitting…</span>`}</p>`}
    ${error && errorRun < 0 && html`<p class="error" role="alert" data-testid="cal-error">
      <strong>${error.path || 'calibrate'}</strong>: ${error.message}</p>`}
    ${result && html`<${Result} output=${result} stale=${stale} applied=${applied}
      onApply=${() => dispatch({ type: 'calApply' })} />`}
  </section>`;
}
