// StageTable: whether the plan fits (FitBanner, with the results), and the
// figures behind the memory chart in GiB with how each item of a stage (the
// peak one unless another is picked) is counted (StageTable, below them).
import { html } from 'htm/preact';
import { TableScroll } from './TableScroll.js';
import { useState } from 'preact/hooks';
import { gib, percent, billions } from '../format.js';
import { limitText, resultFits } from '../fit.js';
import { explainer } from '../explain.js';
import { memoryItems, OTHER_LINES } from '../items.js';
import { Explain } from './Explain.js';

/** "1 micro-batch", "128 micro-batches". */
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** Whether the plan fits, by the one rule of fit.js, with the limit shown:
 * the peak against the memory limit, and the plan in one line. */
export function FitBanner({ result, limit }) {
  const { memory, plan, params } = result;
  const fits = resultFits(result, limit);
  // red: the tensors alone exceed the GPU; over capacity only with the
  // allocator's slack, the run fits or not as its memory fragments
  const over = memory.zone === 'red';
  const slackOver = !over && memory.peak_bytes > memory.capacity_bytes;
  return html`<div class="summary">
    <p class=${`zone ${fits ? 'zone-green' : 'zone-red'}`} data-testid="zone" data-zone=${memory.zone}
      data-fits=${fits ? 1 : 0}>
      <strong>${fits ? 'Fits' : 'Does not fit'}</strong>: peak${' '}
      <strong data-testid="peak-gib" data-bytes=${memory.peak_bytes}>${gib(memory.peak_bytes)} GiB</strong>${' '}
      on the ${memory.peak_stage} stage, ${percent(memory.usage_fraction)} of ${gib(memory.capacity_bytes)} GiB;${' '}
      the memory limit is <span data-testid="memory-limit">${limitText(limit)}</span>${' '}
      ${fits ? '' : over ? '(over the GPU\'s capacity: out of memory)'
        : slackOver ? '(over the GPU\'s capacity only with the allocator\'s expected slack: it may run out of memory)'
          : '(under capacity, but without the margin the limit keeps)'}
    </p>
    <p class="plan" data-testid="plan-line">
      ${billions(params.total)} parameters${plan.ep !== undefined ? ` (${billions(params.active)} active)` : ''}${' '}
      · tp ${plan.tp} · pp ${plan.pp} · cp ${plan.cp} · dp <span data-testid="dp">${plan.dp}</span>${' '}
      ${plan.ep !== undefined && html`· ep <span data-testid="ep">${plan.ep}</span> · etp ${plan.etp} · edp ${plan.edp}${' '}`}
      · ${plural(plan.micro_batches, 'micro-batch', 'micro-batches')} of ${plural(plan.micro_batch, 'sample', 'samples')}
    </p>
  </div>`;
}

export function StageTable({ result }) {
  const { memory } = result;
  const items = memoryItems(result);
  const [picked, pick] = useState(null);
  const stageName = memory.stages.some((s) => s.name === picked) ? picked : memory.peak_stage;
  const how = explainer(result, stageName);
  return html`
    <div class="stages">
      <${TableScroll} label="Per-GPU memory by pipeline stage"><table data-testid="stage-table">
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
      </table></${TableScroll}>
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
