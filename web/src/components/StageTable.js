// StageTable: the figures behind the chart, in GiB, with the zone.
import { html } from 'htm/preact';
import { gib, percent, billions } from '../format.js';
import { explanations } from '../explain.js';
import { Explain } from './Explain.js';

export const ITEMS = [
  ['weights_bytes', 'Weights'],
  ['gradients_bytes', 'Gradients'],
  ['optimizer_bytes', 'Optimizer'],
  ['activations_bytes', 'Activations'],
  ['other_bytes', 'Other'],
];

export function StageTable({ result }) {
  const { memory, plan, params } = result;
  return html`
    <div class="summary">
      <p class=${`zone zone-${memory.zone}`} data-testid="zone" data-zone=${memory.zone}>
        Peak <strong data-testid="peak-gib" data-bytes=${memory.peak_bytes}>${gib(memory.peak_bytes)} GiB</strong>${' '}
        on the ${memory.peak_stage} stage: ${percent(memory.usage_fraction)} of ${gib(memory.capacity_bytes)} GiB
        (${memory.zone === 'green' ? 'fits with margin' : memory.zone === 'yellow' ? 'above 80%: may run out of memory' : 'does not fit'}).
      </p>
      <p class="plan">
        ${billions(params.total)} parameters · tp ${plan.tp} · pp ${plan.pp} · cp ${plan.cp} · dp${' '}<span data-testid="dp">${plan.dp}</span> · ${plan.micro_batches} micro-batches of ${plan.micro_batch}
      </p>
      <table data-testid="stage-table">
        <caption>Per-GPU memory by pipeline stage (GiB)</caption>
        <thead><tr><th scope="col">Stage</th>${ITEMS.map(([, label]) => html`<th scope="col">${label}</th>`)}<th scope="col">Total</th></tr></thead>
        <tbody>
          ${memory.stages.map((s) => html`
            <tr data-stage=${s.name}>
              <th scope="row">${s.name}</th>
              ${ITEMS.map(([key]) => html`<td data-item=${key} data-bytes=${s[key]}>${gib(s[key])}</td>`)}
              <td data-item="total_bytes" data-bytes=${s.total_bytes}><strong>${gib(s.total_bytes)}</strong></td>
            </tr>`)}
        </tbody>
      </table>
      <div class="how-items" data-testid="memory-how">
        <span class="unit">How the ${memory.peak_stage} stage's items are counted:</span>
        ${ITEMS.map(([key, label]) => html`<${Explain} what=${explanations(result)[key]} id=${key} summary=${label} />`)}
      </div>
    </div>`;
}
