// Heatmap: predicted throughput or peak memory over two plan dimensions
// (tp × pp by default), everything else as in the form. Each cell is one
// estimate by the core (the worker's grid call); a cell the core refuses
// shows the core's reason in its tooltip, a cell that does not fit (fit.js:
// over the memory limit) is greyed and marked with the limit, or OOM when
// it is over the GPU's capacity, and the current plan's cell is outlined. The same figures
// follow as a table for screen readers and tests.
import { html } from 'htm/preact';
import { TableScroll } from './TableScroll.js';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { toConfig } from '../fields.js';
import { GIB, count } from '../format.js';
import { PlotFigure } from './PlotFigure.js';
import { cellMap } from './cellmap.js';
import { fitsUnder, limitText } from '../fit.js';

/** The dimensions a heatmap can span: input key, label, largest value. */
export const DIMENSIONS = [
  ['tp', 'Tensor parallel (tp)', 64],
  ['pp', 'Pipeline parallel (pp)', 64],
  ['cp', 'Context parallel (cp)', 32],
  ['mbs', 'Micro-batch (b)', 16],
];
const METRICS = {
  // light: where along the scheme (0 to 1) its colours are light enough to
  // need dark text (viridis ends in yellow, YlOrRd starts in it)
  throughput: { label: 'Tokens/s per GPU', value: (c) => c.tokens_per_s_per_gpu, show: (v) => shortCount(v), scheme: 'viridis',
    light: (t) => t > 0.6 },
  memory: { label: 'Peak memory per GPU (GiB)', value: (c) => c.peak_bytes / GIB, show: (v) => v.toFixed(1), scheme: 'ylorrd',
    light: (t) => t < 0.5 },
};

/** A cell's count in at most four characters, so that it stays legible
 * in a narrow cell: 950, 9.5k, 12k. */
const shortCount = (v) => (v < 1e3 ? count(v) : v < 1e4 ? `${(v / 1e3).toFixed(1)}k` : `${count(v / 1e3)}k`);

/** Powers of two from 1 up to the dimension's limit and the GPU count. */
function axisValues(key, inputs) {
  const [, , largest] = DIMENSIONS.find(([k]) => k === key);
  const gpus = Number(inputs.gpus) || 1;
  const limit = key === 'mbs' ? largest : Math.min(largest, gpus);
  const values = [];
  for (let v = 1; v <= limit; v *= 2) values.push(v);
  return values;
}

/** The cells' inputs: the form's, with the two dimensions set. */
export function gridInputs(inputs, xKey, yKey) {
  const cells = [];
  for (const y of axisValues(yKey, inputs)) {
    for (const x of axisValues(xKey, inputs)) cells.push({ x, y, inputs: { ...inputs, [xKey]: String(x), [yKey]: String(y) } });
  }
  return cells;
}

function heatmapChart(Plot, { cells, xKey, yKey, metric, current, limit }, width) {
  const m = METRICS[metric];
  const fits = (c) => c.ok && fitsUnder(limit, c.peak_bytes, c.capacity_bytes);
  const values = cells.filter(fits).map(m.value);
  const [low, high] = [Math.min(...values), Math.max(...values)];
  const light = (c) => m.light(high > low ? (m.value(c) - low) / (high - low) : 0.5);
  const label = (key) => DIMENSIONS.find(([k]) => k === key)[1];
  return cellMap(Plot, {
    cells,
    filled: fits,
    value: m.value,
    label: (c) => m.show(m.value(c)),
    ink: (c) => (light(c) ? 'black' : 'white'),
    empty: (c) => (!c.ok ? '—' : c.peak_bytes > c.capacity_bytes ? 'OOM' : `>${limitText(limit)}`),
    why: (c) => (c.ok ? `${c.x} × ${c.y}: does not fit (${(c.peak_bytes / GIB).toFixed(1)} GiB, over the ${limitText(limit)} limit)`
      : `${c.x} × ${c.y}: ${c.error.path}: ${c.error.message}`),
    tip: (c) => `${label(xKey)} ${c.x}, ${label(yKey)} ${c.y}\n${count(c.tokens_per_s_per_gpu)} tokens/s/GPU · ` +
      `${(c.peak_bytes / GIB).toFixed(2)} GiB peak · MFU ${(100 * c.mfu).toFixed(1)}%`,
    x: label(xKey),
    y: label(yKey),
    color: { scheme: m.scheme, label: m.label },
    marks: [Plot.cell(current ? [current] : [], { x: 'x', y: 'y', stroke: 'currentColor', strokeWidth: 2.5, fill: 'none' })],
  }, width);
}

/** limit: the memory limit a cell must stay under to fit (fit.js). */
export function Heatmap({ inputs, estimateGrid, limit }) {
  const [xKey, setX] = useState('tp');
  const [yKey, setY] = useState('pp');
  const [metric, setMetric] = useState('throughput');
  // the cells with the axes they were estimated for, so that a change of
  // axes shows the old grid whole until the new one arrives
  const [grid, setGrid] = useState(null);
  // The cells set the two dimensions themselves: a change of either in the
  // form only moves the outline, and the grid is estimated again only when
  // anything else changes.
  const key = JSON.stringify([{ ...inputs, [xKey]: '', [yKey]: '' }, xKey, yKey]);
  useEffect(() => {
    if (xKey === yKey) return;
    let live = true;
    const asked = gridInputs(inputs, xKey, yKey);
    estimateGrid(asked.map((c) => toConfig(c.inputs))).then((reply) => {
      if (live && reply.ok) setGrid({ xKey, yKey, cells: asked.map((c, i) => ({ x: c.x, y: c.y, ...reply.result[i] })) });
    });
    return () => { live = false; };
  }, [key]);

  const cx = grid && Number(inputs[grid.xKey]), cy = grid && Number(inputs[grid.yKey]);
  const chart = useMemo(() => grid && { ...grid, metric, limit, current: { x: cx, y: cy } }, [grid, metric, limit, cx, cy]);
  const select = (id, label, value, set, options) => html`<label for=${id}>${label}
    <select id=${id} value=${value} onChange=${(e) => set(e.currentTarget.value)}>
      ${options.map(([v, text]) => html`<option value=${v}>${text}</option>`)}</select></label>`;
  const dims = DIMENSIONS.map(([k, label]) => [k, label]);
  return html`<div class="heatmap" data-testid="heatmap">
    <h3>What if: two dimensions at once</h3>
    <p class="plan" data-testid="heatmap-limit">A cell fits when its peak stays under the memory limit,${' '}
      ${limitText(limit)} of the GPU's memory (Search's Memory limit); the others are greyed.</p>
    <p class="heatmap-controls">
      ${select('heatmap-x', 'Across', xKey, setX, dims)}
      ${select('heatmap-y', 'Up', yKey, setY, dims)}
      ${select('heatmap-metric', 'Colour by', metric, setMetric, Object.entries(METRICS).map(([k, m]) => [k, m.label]))}
    </p>
    ${xKey === yKey
      ? html`<p class="notice">Pick two different dimensions.</p>`
      : grid && html`<${PlotFigure} draw=${heatmapChart} data=${chart} testid="heatmap-chart"
          label=${`${METRICS[metric].label} over ${grid.xKey} and ${grid.yKey}`} />
        <details><summary>The cells as a table</summary>
          <${TableScroll} label="The heatmap's cells"><table data-testid="heatmap-table">
            <thead><tr><th scope="col">${grid.xKey}</th><th scope="col">${grid.yKey}</th><th scope="col">Tokens/s per GPU</th>
              <th scope="col">Peak GiB</th><th scope="col">Fits</th></tr></thead>
            <tbody>${grid.cells.map((c) => html`<tr data-x=${c.x} data-y=${c.y} data-ok=${c.ok ? 1 : 0}
              data-tokens=${c.ok ? c.tokens_per_s_per_gpu : ''} data-peak=${c.ok ? c.peak_bytes : ''}>
              <td>${c.x}</td><td>${c.y}</td>
              <td>${c.ok ? count(c.tokens_per_s_per_gpu) : '—'}</td>
              <td>${c.ok ? (c.peak_bytes / GIB).toFixed(2) : '—'}</td>
              <td>${c.ok ? (fitsUnder(limit, c.peak_bytes, c.capacity_bytes) ? 'yes' : 'no') : `${c.error.path}: ${c.error.message}`}</td></tr>`)}
            </tbody></table></${TableScroll}></details>`}
  </div>`;
}
