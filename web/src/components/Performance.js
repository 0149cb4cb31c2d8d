// Performance: the headline answers to "how fast?" (MFU, tokens/s per GPU,
// time to train) and the step time broken into its parts as a bar chart
// drawn by Observable Plot, beside the memory chart. Communication items
// are the exposed time only (what overlap with compute does not hide).
import { html } from 'htm/preact';
import { count, percent, seconds } from '../format.js';
import { CHART_STYLE, PlotFigure } from './PlotFigure.js';
import { Explain } from './Explain.js';
import { explainer } from '../explain.js';
import { timeItems } from '../items.js';

function timeChart(Plot, time, width) {
  const items = timeItems(time);
  const rows = items.map(([key, label]) => ({ item: label, s: time[key], share: time[key] / time.step_s }));
  return Plot.plot({
    width,
    height: 300,
    marginLeft: 112,
    marginRight: 104,
    style: CHART_STYLE,
    x: { label: 'Exposed seconds per optimizer step', grid: true, nice: true, ticks: 4 },
    y: { domain: rows.map((r) => r.item), label: null },
    color: { domain: rows.map((r) => r.item), range: items.map(([, , colour]) => colour) },
    marks: [
      Plot.barX(rows, {
        y: 'item', x: 's', fill: 'item',
        tip: { format: { x: (v) => seconds(v), y: true, fill: false, share: (v) => percent(v) } },
        channels: { share: { value: 'share', label: 'share of step' } },
      }),
      Plot.text(rows, { y: 'item', x: 's', text: (r) => `${seconds(r.s)} (${percent(r.share)})`, textAnchor: 'start', dx: 4 }),
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

export function Headline({ result }) {
  const { time, throughput: t, config } = result;
  const days = t.time_to_train_days;
  const how = explainer(result);
  return html`<dl class="headline" data-testid="headline">
    <${Figure} label="MFU" testid="mfu" raw=${t.mfu} value=${percent(t.mfu)}
      detail=${`HFU ${percent(t.hfu)}`} how=${how} item="mfu" />
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
