// Search: "what should I run?" The search's constraints, what it counted,
// the memory / throughput scatter with its Pareto front, a sortable table of
// the top plans with "apply" (loads a plan into the estimator above), why
// the best plan chose each value, and the scaling chart over GPU counts.
import { html } from 'htm/preact';
import { TableScroll } from './TableScroll.js';
import { useMemo, useState } from 'preact/hooks';
import { FIELDS, SEARCH_GROUP, applies } from '../fields.js';
import { count, percent, placement, seconds } from '../format.js';
import { download, searchCsv } from '../exports.js';
import { Field } from './Inputs.js';
import { CHART_STYLE, PlotFigure } from './PlotFigure.js';

/** A plan in one line: "tp 2 · cp 1 · pp 1 · …". */
export const planLabel = (p) =>
  `tp ${p.tp} · cp ${p.cp} · pp ${p.pp} · dp ${p.dp} · b ${p.micro_batch}` +
  (p.vpp > 1 ? ` · v ${p.vpp}` : '') + (p.ep !== undefined ? ` · ep ${p.ep} · etp ${p.etp}` : '') +
  ` · ${p.sharding} · recompute ${p.recompute}` + (p.fp8 ? ' · fp8' : '');

function scatterChart(Plot, search, width) {
  const front = search.pareto.map((p) => ({ ...p, label: planLabel(p.plan) }));
  const top = search.plans.map((p) => ({
    peak_memory_gib: p.estimate.memory.peak_bytes / 2 ** 30,
    tokens_per_s_per_gpu: p.estimate.throughput.tokens_per_s_per_gpu,
    label: `#${p.rank}: ${planLabel(p.plan)}`,
  }));
  return Plot.plot({
    width,
    height: 320,
    marginLeft: 60,
    marginBottom: 42,
    style: CHART_STYLE,
    // both axis labels centred beside their ticks, not over the end ones
    x: { label: 'Peak memory per GPU (GiB) →', grid: true, nice: true, labelAnchor: 'center', labelOffset: 36 },
    y: { label: '↑ Tokens/s per GPU', grid: true, nice: true, tickFormat: '~s', labelAnchor: 'center', labelOffset: 46 },
    marks: [
      Plot.dot(search.sample, { x: 'peak_memory_gib', y: 'tokens_per_s_per_gpu', r: 2, fill: 'currentColor', fillOpacity: 0.18 }),
      Plot.line(front, { x: 'peak_memory_gib', y: 'tokens_per_s_per_gpu', stroke: '#d55e00', curve: 'step-before' }),
      Plot.dot(front, { x: 'peak_memory_gib', y: 'tokens_per_s_per_gpu', fill: '#d55e00', r: 3.5,
        tip: true, title: (d) => `${d.label}\n${d.peak_memory_gib.toFixed(2)} GiB · ${count(d.tokens_per_s_per_gpu)} tokens/s/GPU` }),
      Plot.dot(top, { x: 'peak_memory_gib', y: 'tokens_per_s_per_gpu', stroke: '#0072b2', r: 6, strokeWidth: 2,
        title: (d) => `${d.label}\n${d.peak_memory_gib.toFixed(2)} GiB · ${count(d.tokens_per_s_per_gpu)} tokens/s/GPU` }),
    ],
  });
}

/** The scaling chart's curves: the best plan's figure on each GPU count. */
const SCALING_METRICS = {
  tokens_per_s: { label: '↑ Tokens/s (whole job)', tickFormat: '~s', note: (d) => `MFU ${percent(d.mfu)}` },
  mfu: { label: '↑ MFU (%)', tickFormat: (v) => `${(100 * v).toFixed(0)}`, note: (d) => `${count(d.tokens_per_s / 1e6, 2)} M tok/s` },
  time_to_train_days: { label: '↓ Days to train', tickFormat: '~s', note: (d) => `${count(d.time_to_train_days, 1)} d` },
};

function scalingChart(Plot, { scaling, metric }, width) {
  const rows = scaling.filter((s) => s.fits);
  const m = SCALING_METRICS[metric];
  // A GPU-count tick every 56 px at most, so that "16,384" never meets its
  // neighbour, and a note every 72 px (the others are in the tooltips); the
  // notes sit inside the frame (the insets), clear of the axes.
  const plotWidth = Math.max(1, width - 64 - 24 - 72);
  const every = Math.ceil((rows.length * 56) / plotWidth);
  const noteEvery = Math.ceil((rows.length * 72) / plotWidth);
  return Plot.plot({
    width,
    height: 280,
    marginLeft: 64,
    marginRight: 24,
    marginTop: 24,
    marginBottom: 40,
    insetLeft: 36,
    insetRight: 36,
    insetTop: 22,
    style: CHART_STYLE,
    x: { type: 'log', base: 2, label: 'GPUs →', grid: true, labelAnchor: 'center', labelOffset: 34,
      ticks: rows.map((r) => r.gpus).filter((_, i) => i % every === 0), tickFormat: (v) => count(v) },
    y: { label: m.label, grid: true, nice: true, zero: metric === 'mfu', tickFormat: m.tickFormat },
    marks: [
      Plot.line(rows, { x: 'gpus', y: metric, stroke: '#0072b2' }),
      Plot.dot(rows, { x: 'gpus', y: metric, fill: '#0072b2', tip: true,
        title: (d) => `${count(d.gpus)} GPUs: ${planLabel(d.plan)}\n${count(d.tokens_per_s)} tokens/s · MFU ${percent(d.mfu)} · ` +
          `${count(d.time_to_train_days, 1)} days to train` }),
      Plot.text(rows.filter((_, i) => i % noteEvery === 0), { x: 'gpus', y: metric, text: m.note, dy: -12, fill: 'currentColor', className: 'halo' }),
    ],
  });
}

/** The scaling chart with its choice of curve. */
function Scaling({ search }) {
  const [metric, setMetric] = useState('tokens_per_s');
  const data = useMemo(() => ({ scaling: search.scaling, metric }), [search.scaling, metric]);
  return html`<div>
    <h3>Scaling: the best plan on each GPU count</h3>
    <label class="inline" for="scaling-metric">Show
      <select id="scaling-metric" value=${metric} onChange=${(e) => setMetric(e.currentTarget.value)}>
        <option value="tokens_per_s">throughput</option><option value="mfu">MFU</option>
        <option value="time_to_train_days">time to train</option></select></label>
    <${PlotFigure} draw=${scalingChart} data=${data} testid="scaling-chart"
      label=${`The best plan's ${metric.replaceAll('_', ' ')} against the GPU count`} />
    ${search.min_gpus && html`<p class="plan" data-testid="min-gpus">Fits from ${count(search.min_gpus)} GPUs (powers of two).</p>`}
  </div>`;
}

/** Table columns: label, value of a plan entry, how to show it. */
const COLUMNS = [
  ['#', (p) => p.rank, String],
  ['tp', (p) => p.plan.tp, String],
  ['cp', (p) => p.plan.cp, String],
  ['pp', (p) => p.plan.pp, String],
  ['dp', (p) => p.plan.dp, String],
  ['b', (p) => p.plan.micro_batch, String],
  ['v', (p) => p.plan.vpp, String],
  ['ep', (p) => p.plan.ep, String],
  ['etp', (p) => p.plan.etp, String],
  ['sp', (p) => (p.plan.sp ? 1 : 0), (v) => (v ? 'on' : 'off')],
  ['sharding', (p) => p.plan.sharding, String],
  ['recompute', (p) => p.plan.recompute, String],
  ['precision', (p) => (p.plan.fp8 ? 'fp8' : 'bf16'), String],
  ['placement', (p) => placement(p.plan.per_node), String],
  ['step', (p) => p.estimate.time.step_s, seconds],
  ['tokens/s/GPU', (p) => p.estimate.throughput.tokens_per_s_per_gpu, (v) => count(v)],
  ['MFU', (p) => p.estimate.throughput.mfu, percent],
  ['peak GiB', (p) => p.estimate.memory.peak_bytes / 2 ** 30, (v) => v.toFixed(2)],
];

function PlanTable({ plans, onApply }) {
  const [sort, setSort] = useState({ column: 0, ascending: true });
  // expert columns for a MoE model's plans only
  const columns = COLUMNS.filter(([label]) => (label !== 'ep' && label !== 'etp') || plans.some((p) => p.plan.ep !== undefined));
  const value = columns[Math.min(sort.column, columns.length - 1)][1];
  const rows = [...plans].sort((a, b) => {
    const x = value(a), y = value(b);
    const order = x < y ? -1 : x > y ? 1 : 0;
    return sort.ascending ? order : -order;
  });
  const header = (label, i) => html`<th scope="col" aria-sort=${sort.column === i ? (sort.ascending ? 'ascending' : 'descending') : 'none'}>
    <button type="button" class="sort" onClick=${() => setSort({ column: i, ascending: sort.column === i ? !sort.ascending : true })}>
      ${label}${sort.column === i ? (sort.ascending ? ' ▲' : ' ▼') : ''}</button></th>`;
  return html`<${TableScroll} label="Top plans"><table class="plans" data-testid="plan-table">
    <caption>Top plans (click a heading to sort)</caption>
    <thead><tr>${columns.map(([label], i) => header(label, i))}<th scope="col"></th></tr></thead>
    <tbody>
      ${rows.map((p) => html`<tr data-rank=${p.rank}>
        ${columns.map(([label, get, show]) => html`<td data-col=${label}>${show(get(p))}</td>`)}
        <td>${p.plan.sharding === 'amsp'
          ? html`<span class="unit" title="AMSP factors cannot be set in the form above">—</span>`
          : html`<button type="button" data-testid="apply" onClick=${() => onApply(p.plan)}>Apply</button>`}</td>
      </tr>`)}
    </tbody>
  </table></${TableScroll}>`;
}

/** While a search runs: how many of its parts are done, over how many
 * plans, and a button that stops it (split searches only: one worker's
 * search is one call, at most a second or so of work). */
function Progress({ searching, workers, onCancel }) {
  const { done, total, candidates } = searching;
  return html`<p class="search-progress" data-testid="search-progress" role="status">
    <progress max=${total || 1} value=${done}></progress>
    ${total > 0
      ? ` Searching on ${workers} workers: ${done} of ${total} parts, ${count(candidates)} plans so far… `
      : ' Searching… '}
    ${total > 0 && onCancel && html`<button type="button" data-testid="search-cancel" onClick=${onCancel}>Stop</button>`}</p>`;
}

/** A search that stopped at its work budget: what it covered. */
function Truncated({ search }) {
  const c = search.counts;
  return html`<p class="notice" data-testid="search-truncated">
    The search stopped at its work budget (search.max_evaluations): these are the best of the
    ${count(c.candidates - c.unsearched)} plans it looked at, ${count(c.shapes_searched)} of
    ${count(c.shapes)} tp × cp × pp shapes, smallest tp first. Narrow the space (largest tp, pp or
    micro-batch) to search the rest.</p>`;
}

function Counts({ search, ms, workers }) {
  const c = search.counts;
  const reasons = Object.entries(c.invalid).filter(([, n]) => n > 0)
    .map(([name, n]) => `${count(n)} ${name.replaceAll('_', ' ')}`).join(', ');
  const invalid = `${count(c.invalid_total)} invalid` + (reasons ? ` (${reasons})` : '');
  return html`<p class="search-counts" data-testid="search-counts">
    ${`${count(c.candidates)} plans on ${count(search.gpus)} GPUs: ${invalid}, ${count(c.out_of_memory)} out of memory, `}
    <strong>${count(c.fit)} fit</strong>${`. Searched in ${ms.toFixed(0)} ms on ${workers} ` +
      `${workers === 1 ? 'worker' : 'workers'} (scaling included).`}</p>`;
}

export function Search({ inputs, search, error, ms, searching, workers, presets, onChange, onApply, onCancel }) {
  const fields = FIELDS.filter((f) => f.group === SEARCH_GROUP);
  return html`<section class="search" id="search" data-testid="search" aria-labelledby="search-title">
    <h2 id="search-title">Which plan is best?</h2>
    <p class="plan">Every tp, cp, pp, micro-batch, interleaving, sequence parallel, sharding, recompute and
      placement (and fp8 or bf16, when asked) for this model, hardware and batch, ranked by predicted step time. A plan fits when its peak
      stays under the memory limit below, the same limit the estimate, the banner and the heatmap use.</p>
    <form class="search-inputs" onSubmit=${(e) => e.preventDefault()}>
      <fieldset><legend>Constraints</legend>
        ${fields.map((f) => html`<${Field} field=${f} value=${inputs[f.key]} presets=${presets} error=${error}
          active=${applies(f, inputs, presets)} onChange=${onChange} />`)}
      </fieldset>
    </form>
    ${searching && html`<${Progress} searching=${searching} workers=${workers} onCancel=${onCancel} />`}
    ${error && html`<p class="error" role="alert" data-testid="search-error"><strong>${error.path || 'input'}</strong>: ${error.message}</p>`}
    ${search && html`<div class=${error ? 'stale' : ''} aria-live="polite">
      <${Counts} search=${search} ms=${ms} workers=${workers} />
      ${search.truncated && html`<${Truncated} search=${search} />`}
      ${search.plans.length === 0
        ? html`<p class="notice" data-testid="no-plan">No plan fits: add GPUs, raise the memory limit, or allow more sharding and recompute.</p>`
        : html`
          <div class="charts">
            <div>
              <h3>Memory and throughput of the plans that fit</h3>
              <${PlotFigure} draw=${scatterChart} data=${search} testid="search-scatter"
                label="Peak memory against tokens per second per GPU; the Pareto front in vermillion, the top plans circled in blue" />
            </div>
            ${search.scaling && search.scaling.some((s) => s.fits) && html`<${Scaling} search=${search} />`}
          </div>
          <${PlanTable} plans=${search.plans} onApply=${onApply} />
          <p class="export-files"><button type="button" data-testid="save-csv"
            onClick=${() => download('trainplan-search.csv', searchCsv(search), 'text/csv')}>Plans as CSV</button>
            <small>The top plans and the Pareto front, at full precision.</small></p>
          <h3>Why the best plan</h3>
          <ul class="explain" data-testid="explain">
            ${Object.entries(search.explain).map(([dim, text]) => html`<li data-dim=${dim}>${text}</li>`)}
          </ul>`}
    </div>`}
  </section>`;
}
