// Performance: the headline answers to "how fast?" (MFU, tokens/s per GPU,
// time to train), greyed for a plan that does not fit with the fastest plan
// that does beside them (BestFit), and the step time broken into its parts as a bar chart
// drawn by Observable Plot, beside the memory chart. Communication items
// are the exposed time only (what overlap with compute does not hide).
import { html } from 'htm/preact';
import { count, percent, seconds } from '../format.js';
import { CHART_STYLE, PlotFigure } from './PlotFigure.js';
import { Explain } from './Explain.js';
import { explainer } from '../explain.js';
import { timeItems } from '../items.js';
import { limitText } from '../fit.js';
import { planLabel } from './Search.js';

/** One unit for the whole chart, axis and labels alike: the one a person
 * would say the step time in (format.js seconds() picks per value). */
function timeUnit(stepS) {
  if (stepS < 1) return { name: 'ms', scale: 1e3 };
  if (stepS < 120) return { name: 's', scale: 1 };
  if (stepS < 7200) return { name: 'min', scale: 1 / 60 };
  return { name: 'h', scale: 1 / 3600 };
}

/** A chart's text width in px: Plot measures nothing, so margins are sized
 * from the longest label at CHART_STYLE's 12 px (about 7 px a character). */
const textWidth = (texts) => 7 * Math.max(...texts.map((t) => t.length));

function timeChart(Plot, time, width) {
  const items = timeItems(time);
  const unit = timeUnit(time.step_s);
  const rows = items.map(([key, label]) => ({ item: label, value: time[key] * unit.scale, share: time[key] / time.step_s }));
  const digits = unit.name === 'ms' || unit.name === 's' ? 2 : 1;
  const text = (r) => `${r.value.toFixed(digits)} (${percent(r.share)})`;
  return Plot.plot({
    width,
    height: 36 + 26 * rows.length,
    marginLeft: 8 + textWidth(rows.map((r) => r.item)),
    marginRight: 12 + textWidth(rows.map(text)),
    marginBottom: 42,
    style: CHART_STYLE,
    x: { label: `Exposed time per optimizer step (${unit.name})`, grid: true, nice: true, ticks: 4, labelAnchor: 'center', labelOffset: 36 },
    y: { domain: rows.map((r) => r.item), label: null },
    color: { domain: rows.map((r) => r.item), range: items.map(([, , colour]) => colour) },
    marks: [
      Plot.barX(rows, {
        y: 'item', x: 'value', fill: 'item',
        tip: { format: { x: (v) => `${v.toFixed(digits)} ${unit.name}`, y: true, fill: false, share: (v) => percent(v) } },
        channels: { share: { value: 'share', label: 'share of step' } },
      }),
      Plot.text(rows, { y: 'item', x: 'value', text, textAnchor: 'start', dx: 4 }),
      Plot.ruleX([0]),
    ],
  });
}

export function TimeChart({ result }) {
  const how = explainer(result);
  return html`<div>
    <${PlotFigure} draw=${timeChart} data=${result.time} testid="time-chart" label="Step time by part" />
    <div class="how-items" data-testid="time-how">
      <span class="unit">How each part is counted:</span>
      ${timeItems(result.time).map(([key, label]) => html`<${Explain} how=${how} item=${key} id=${key} summary=${label} />`)}
    </div>
  </div>`;
}

function Figure({ label, value, testid, raw, detail, how, item }) {
  return html`<div class="headline-figure">
    <dt>${label}</dt>
    <dd data-testid=${testid} data-value=${raw}>${value}</dd>
    ${detail && html`<dd class="detail">${detail}</dd>`}
    ${item && html`<dd class="how-detail"><${Explain} how=${how} item=${item} id=${testid} /></dd>`}
  </div>`;
}

/** fits: whether the plan fits (fit.js); the figures of one that does not
 * are greyed and say so, since no such run would finish a step. */
export function Headline({ result, fits }) {
  const { time, throughput: t, config } = result;
  const days = t.time_to_train_days;
  const how = explainer(result);
  return html`${!fits && html`<p class="unfit-note" data-testid="unfit-note">Does not fit: the figures below are for a
      run that would not start.</p>`}
  <dl class=${fits ? 'headline' : 'headline unfit'} data-testid="headline" data-fits=${fits ? 1 : 0}>
    <${Figure} label="MFU" testid="mfu" raw=${t.mfu} value=${percent(t.mfu)}
      detail=${`HFU ${percent(t.hfu)} · of ${count(t.mfu_peak_tflops)} TFLOP/s BF16` + (t.gemm_peak_tflops !== t.mfu_peak_tflops
        ? `; GEMMs at ${count(t.gemm_peak_tflops)}` : '')} how=${how} item="mfu" />
    <${Figure} label="Tokens/s per GPU" testid="tokens-per-s" raw=${t.tokens_per_s_per_gpu}
      value=${count(t.tokens_per_s_per_gpu)} detail=${`${count(t.model_tflops_per_gpu, 1)} TFLOP/s per GPU`} how=${how} item="tokens_per_s_per_gpu" />
    <${Figure} label="Step time" testid="step-s" raw=${time.step_s} value=${seconds(time.step_s)}
      detail=${`${count(config.training.global_batch * config.training.seq_len)} tokens per step`} how=${how} item="step_s" />
    <${Figure} label="Time to train" testid="train-days" raw=${days}
      value=${days < 2 ? seconds(days * 86400) : `${count(days, 1)} days`}
      detail=${`${count(t.gpu_hours)} GPU-hours` + (t.cost !== undefined ? ` · $${count(t.cost)}` : '')}
      how=${how} item="time_to_train_days" />
  </dl>`;
}

/** Beside a plan that does not fit: the fastest plan that does, from the
 * search for the same model, hardware and batch, one click to apply. */
export function BestFit({ best, searching, embed, gpus, limit, onApply }) {
  let body;
  if (embed) body = 'Open it in trainplan to search for a plan that fits.';
  else if (searching) body = 'Searching for the fastest plan that fits…';
  else if (!best) body = `No plan found that fits on ${count(gpus)} GPUs under the ${limitText(limit)} limit (see Search).`;
  else {
    const { plan, estimate: e } = best;
    body = html`The fastest plan that fits: <strong data-testid="best-fit-plan">${planLabel(plan)}</strong>,${' '}
      ${seconds(e.time.step_s)} a step, MFU ${percent(e.throughput.mfu)}, peak${' '}
      ${percent(e.memory.peak_bytes / e.memory.capacity_bytes)} of memory.${' '}
      <button type="button" data-testid="best-fit-apply" onClick=${() => onApply(plan)}>Apply this plan</button>`;
  }
  return html`<p class="best-fit" data-testid="best-fit" role="status">${body}</p>`;
}
