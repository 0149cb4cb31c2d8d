// StageTable: the figures behind the chart, in GiB, with the zone, and how
// each item of a stage (the peak one unless another is picked) is counted.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { gib, percent, billions } from '../format.js';
import { explainer } from '../explain.js';
import { memoryItems, OTHER_LINES } from '../items.js';
import { Explain } from './Explain.js';

export function StageTable({ result }) {
  const { memory, plan, params } = result;
  const items = memoryItems(result);
  const [picked, pick] = useState(null);
  const stageName = memory.stages.some((s) => s.name === picked) ? picked : memory.peak_stage;
  const how = explainer(result, stageName);
  return html`
    <div class="summary">
      <p class=${`zone zone-${memory.zone}`} data-testid="zone" data-zone=${memory.zone}>
        Peak <strong data-testid="peak-gib" data-bytes=${memory.peak_bytes}>${gib(memory.peak_bytes)} GiB</strong>${' '}
        on the ${memory.peak_stage} stage: ${percent(memory.usage_fraction)} of ${gib(memory.capacity_bytes)} GiB
        (${memory.zone === 'green' ? 'fits with margin' : memory.zone === 'yellow' ? 'above 80%: may run out of memory' : 'does not fit'}).
      </p>
      <p class="plan">
        ${billions(params.total)} parameters${plan.ep !== undefined && html` (${billions(params.active)} active)`}${' '}
        · tp ${plan.tp} · pp ${plan.pp} · cp ${plan.cp} · dp${' '}<span data-testid="dp">${plan.dp}</span>
        ${plan.ep !== undefined && html` · ep <span data-testid="ep">${plan.ep}</span> · etp ${plan.etp} · edp ${plan.edp}`}
        · ${plan.micro_batches} micro-batches of ${plan.micro_batch}
      </p>
      <table data-testid="stage-table">
        <caption>Per-GPU memory by pipeline stage (GiB)${items.length > 5 ? '; the routed experts\' weights, gradients, optimizer states and routed activations are on their own line' : ''}</caption>
        <thead><tr><th scope="col">Stage</th>${items.map(([, label]) => html`<th scope="col">${label}</th>`)}<th scope="col">Total</th></tr></thead>
        <tbody>
          ${memory.stages.map((s) => html`
            <tr data-stage=${s.name}>
              <th scope="row">${s.name}</th>
              ${items.map(([key, , bytes]) => html`<td data-item=${key} data-bytes=${bytes(s)}>${gib(bytes(s))}</td>`)}
              <td data-item="total_bytes" data-bytes=${s.total_bytes}><strong>${gib(s.total_bytes)}</strong></td>
            </tr>`)}
        </tbody>
      </table>
      <div class="how-items" data-testid="memory-how">
        <span class="unit">How the${' '}
          ${memory.stages.length > 1
            ? html`<select aria-label="Stage to explain" data-testid="how-stage" value=${stageName}
                onChange=${(e) => pick(e.target.value)}>
                ${memory.stages.map((s) => html`<option value=${s.name}>${s.name}</option>`)}</select>`
            : stageName}${' '}
          stage's items are counted:</span>
        ${items.map(([key, label]) => html`<${Explain} how=${how} item=${key} id=${key} summary=${label} />`)}
        <span class="unit">and the lines of its Other:</span>
        ${OTHER_LINES.map(([key, label]) => html`<${Explain} how=${how} item=${`other.${key}`} id=${`other-${key}`} summary=${label} />`)}
      </div>
    </div>`;
}
