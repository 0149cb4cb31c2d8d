// Sweep: Subramanian et al. 2024's hardware what-if heatmaps (its Figures 5
// and 6). For the form's model, GPU count and search constraints, the best
// plan at every point of a grid of two hardware axes: run here in the workers
// (a small grid), or loaded from a `trainplan sweep` file (a large one, run in
// shards on a cluster and merged). Colour by days to train, tokens/s per GPU,
// MFU or peak memory; axes beyond the two shown are held at a chosen value.
// The same figures follow as a table.
import { html } from 'htm/preact';
import { TableScroll } from './TableScroll.js';
import { useMemo, useState } from 'preact/hooks';
import { SWEEP_AXES, SWEEP_METRICS, checkSweep, readSweep, sweepCells, sweepDocument, sweepPlanLabel } from '../sweep.js';
import { PlotFigure } from './PlotFigure.js';
import { cellMap } from './cellmap.js';

const axisLabel = (axis) => SWEEP_AXES[axis].label;

function sweepChart(Plot, { cells, xAxis, yAxis, metric }, width) {
  const m = SWEEP_METRICS[metric];
  // dark text on the light end of the scheme: viridis ends in yellow, YlOrRd starts in it
  const values = cells.filter((c) => c.fits).map((c) => c[metric]);
  const [low, high] = [Math.min(...values), Math.max(...values)];
  const along = (c) => { const t = high > low ? (c[metric] - low) / (high - low) : 0.5; return m.reverse ? 1 - t : t; };
  const light = (c) => (m.scheme === 'viridis' ? along(c) > 0.6 : along(c) < 0.5);
  return cellMap(Plot, {
    cells,
    filled: (c) => c.fits,
    value: (c) => c[metric] * (m.scale ?? 1),
    label: (c) => m.show(c[metric]),
    ink: (c) => (light(c) ? 'black' : 'white'),
    empty: () => '—',
    why: (c) => `${c.x} × ${c.y}: no plan fits`,
    tip: (c) => `${axisLabel(xAxis)} ${c.x}${yAxis ? `, ${axisLabel(yAxis)} ${c.y}` : ''}\n` +
      `${sweepPlanLabel(c.plan)}\n${SWEEP_METRICS.time_to_train_days.show(c.time_to_train_days)} days · ` +
      `MFU ${(100 * c.mfu).toFixed(1)}% · ${c.peak_memory_gib.toFixed(1)} GiB`,
    x: axisLabel(xAxis),
    y: yAxis ? axisLabel(yAxis) : null,
    color: { scheme: m.scheme, reverse: m.reverse, label: m.label },
  }, width);
}

/** Two axes to run, each with its values. */
function AxisInput({ id, axis, values, onAxis, onValues, disabled }) {
  return html`<span class="sweep-axis">
    <label for=${id}>${id.endsWith('x') ? 'Across' : 'Up'}
      <select id=${id} value=${axis} disabled=${disabled} onChange=${(e) => onAxis(e.currentTarget.value)}>
        ${Object.entries(SWEEP_AXES).map(([k, a]) => html`<option value=${k}>${a.label}</option>`)}</select></label>
    <label for=${`${id}-values`}>values
      <input id=${`${id}-values`} value=${values} size="16" disabled=${disabled}
        onInput=${(e) => onValues(e.currentTarget.value)} /></label></span>`;
}

export function Sweep({ inputs, engine, presets }) {
  const [axes, setAxes] = useState([['tensor_tflops', SWEEP_AXES.tensor_tflops.values],
    ['memory_gib', SWEEP_AXES.memory_gib.values]]);
  const [sweep, setSweep] = useState(null); // {axes, values, points, gpus, model, source}
  const [error, setError] = useState(null);
  const [running, setRunning] = useState(null); // {done, total} while a sweep runs
  const [metric, setMetric] = useState('time_to_train_days');
  const [view, setView] = useState({ x: null, y: null, fixed: {} });

  const show = (loaded, source) => {
    setSweep({ ...loaded, source });
    setView({ x: loaded.axes[0], y: loaded.axes[1] ?? null,
      fixed: Object.fromEntries(loaded.axes.map((a) => [a, loaded.values[a][0]])) });
    setError(null);
  };
  const setAxis = (i, axis) => setAxes(axes.map((a, j) => (j === i ? [axis, SWEEP_AXES[axis].values] : a)));
  const setValues = (i, values) => setAxes(axes.map((a, j) => (j === i ? [a[0], values] : a)));

  const run = async () => {
    if (axes[0][0] === axes[1][0]) {
      setError('pick two different axes');
      return;
    }
    setRunning({ done: 0, total: engine.workers });
    const reply = await engine.sweep(sweepDocument(inputs, axes, presets), setRunning);
    setRunning(null);
    if (!reply.ok) {
      setError(`${reply.error.path || 'sweep'}: ${reply.error.message}`);
      return;
    }
    const read = checkSweep(reply.result);
    if (read.error) setError(read.error);
    else show(read.sweep, `run here on ${inputs.gpus} GPUs`);
  };
  const load = async (event) => {
    const file = event.currentTarget.files?.[0];
    if (!file) return;
    if (file.size > 8 * 1024 * 1024) {
      setError(`${file.name}: larger than 8 MiB, not a sweep of at most 4,096 points`);
      return;
    }
    const read = readSweep(await file.text());
    if (read.error) setError(`${file.name}: ${read.error}`);
    else show(read.sweep, `${file.name}: ${read.sweep.model} on ${read.sweep.gpus} GPUs`);
  };

  const cells = useMemo(() => sweep && view.x && sweepCells(sweep, view.x, view.y, view.fixed), [sweep, view]);
  const chart = useMemo(() => cells && { cells, xAxis: view.x, yAxis: view.y, metric }, [cells, metric]);
  const choose = (id, label, value, set, options) => html`<label for=${id}>${label}
    <select id=${id} value=${value} onChange=${(e) => set(e.currentTarget.value)}>
      ${options.map(([v, text]) => html`<option value=${v}>${text}</option>`)}</select></label>`;
  const held = sweep ? sweep.axes.filter((a) => a !== view.x && a !== view.y) : [];

  return html`<section class="sweep" id="sweep" data-testid="sweep" aria-labelledby="sweep-title">
    <h2 id="sweep-title">Hardware what-if</h2>
    <p>Training time of this model on ${inputs.gpus} GPUs as the hardware changes, each point the best plan the
      search finds (Subramanian et al. 2024 Figures 5 and 6). Run a small grid here, or load the output
      of <code>trainplan sweep</code> (shards merged with <code>sweep --merge</code>).</p>
    <p class="sweep-controls">
      <${AxisInput} id="sweep-x" axis=${axes[0][0]} values=${axes[0][1]} disabled=${!!running}
        onAxis=${(a) => setAxis(0, a)} onValues=${(v) => setValues(0, v)} />
      <${AxisInput} id="sweep-y" axis=${axes[1][0]} values=${axes[1][1]} disabled=${!!running}
        onAxis=${(a) => setAxis(1, a)} onValues=${(v) => setValues(1, v)} />
      <button type="button" data-testid="sweep-run" disabled=${!!running} onClick=${run}>Run sweep</button>
      <label for="sweep-file">Load a sweep file
        <input id="sweep-file" type="file" accept=".json,application/json" data-testid="sweep-file" onChange=${load} /></label>
    </p>
    ${running && html`<p role="status" data-testid="sweep-progress">Sweeping: ${running.done} of ${running.total} shards done…</p>`}
    ${error && html`<p class="error" role="alert" data-testid="sweep-error">${error}</p>`}
    ${sweep && html`<div data-testid="sweep-result">
      <p class="sweep-controls"><small data-testid="sweep-source">${sweep.source}</small>
        ${sweep.axes.length > 2 && choose('sweep-view-x', 'Across', view.x, (x) => setView({ ...view, x }),
          sweep.axes.map((a) => [a, axisLabel(a)]))}
        ${sweep.axes.length > 2 && choose('sweep-view-y', 'Up', view.y, (y) => setView({ ...view, y }),
          sweep.axes.map((a) => [a, axisLabel(a)]))}
        ${held.map((a) => choose(`sweep-hold-${a}`, `${axisLabel(a)} at`, String(view.fixed[a]),
          (v) => setView({ ...view, fixed: { ...view.fixed, [a]: Number(v) } }),
          sweep.values[a].map((v) => [String(v), String(v)])))}
        ${choose('sweep-metric', 'Colour by', metric, setMetric, Object.entries(SWEEP_METRICS).map(([k, m]) => [k, m.label]))}
      </p>
      ${view.x === view.y
        ? html`<p class="notice">Pick two different axes.</p>`
        : html`<${PlotFigure} draw=${sweepChart} data=${chart} testid="sweep-chart"
          label=${`${SWEEP_METRICS[metric].label} over ${view.x}${view.y ? ` and ${view.y}` : ''}`} />
        <details><summary>The points as a table</summary>
          <${TableScroll} label="The sweep's points"><table data-testid="sweep-table">
            <thead><tr><th scope="col">${view.x}</th>${view.y && html`<th scope="col">${view.y}</th>`}
              <th scope="col">Best plan</th><th scope="col">Days</th><th scope="col">Tokens/s per GPU</th>
              <th scope="col">MFU</th><th scope="col">Peak GiB</th></tr></thead>
            <tbody>${cells.map((c) => html`<tr data-x=${c.x} data-y=${c.y} data-fits=${c.fits ? 1 : 0}
              data-days=${c.fits ? c.time_to_train_days : ''}>
              <td>${c.x}</td>${view.y && html`<td>${c.y}</td>`}
              <td>${c.fits ? sweepPlanLabel(c.plan) : 'no plan fits'}</td>
              <td>${c.fits ? SWEEP_METRICS.time_to_train_days.show(c.time_to_train_days) : '—'}</td>
              <td>${c.fits ? SWEEP_METRICS.tokens_per_s_per_gpu.show(c.tokens_per_s_per_gpu) : '—'}</td>
              <td>${c.fits ? SWEEP_METRICS.mfu.show(c.mfu) : '—'}</td>
              <td>${c.fits ? SWEEP_METRICS.peak_memory_gib.show(c.peak_memory_gib) : '—'}</td></tr>`)}
            </tbody></table></${TableScroll}></details>`}
    </div>`}
  </section>`;
}
