// Compare: a pinned configuration beside the current one. The inputs that
// differ, then memory (the peak stage's items), step time (its parts) and
// throughput side by side, with the change from pinned to current; a change
// is marked better or worse by what the figure means (less memory and time,
// more tokens/s are better). The first row says whether each plan fits
// (fit.js, each under its own memory limit); when either does not, no
// other change is marked better or worse, since a faster step of a plan
// that cannot run is no gain.
import { html } from 'htm/preact';
import { TableScroll } from './TableScroll.js';
import { FIELDS } from '../fields.js';
import { calSummary } from '../calibration.js';
import { count, gib, percent, seconds } from '../format.js';
import { memoryItems, timeItems } from '../items.js';
import { limitText, memoryLimit, resultFits } from '../fit.js';

const peakStage = (r) => r.memory.stages.find((s) => s.name === r.memory.peak_stage) || r.memory.stages[0];
const days = (d) => `${count(d, 1)} days`;

/** Rows: [group, label, value of a result, format, higher is better]; the
 * expert lines when either result has experts. */
function rows(pinned, current) {
  return [
    ...memoryItems(pinned, current).map(([, label, bytes]) =>
      ['Memory, peak stage', label, (r) => bytes(peakStage(r)), (b) => `${gib(b)} GiB`, false]),
    ['Memory, peak stage', 'Peak', (r) => r.memory.peak_bytes, (b) => `${gib(b)} GiB`, false],
    ...timeItems(pinned.time, current.time).map(([key, label]) => ['Step time', label, (r) => r.time[key] ?? 0, seconds, false]),
    ['Step time', 'Step', (r) => r.time.step_s, seconds, false],
    ['Throughput', 'Tokens/s per GPU', (r) => r.throughput.tokens_per_s_per_gpu, (v) => count(v), true],
    ['Throughput', 'MFU', (r) => r.throughput.mfu, percent, true],
    ['Throughput', 'Time to train', (r) => r.throughput.time_to_train_days, days, false],
    ['Throughput', 'GPU-hours', (r) => r.throughput.gpu_hours, (v) => count(v), false],
  ];
}

function change(before, after, higherIsBetter) {
  if (before === after) return { text: '=', verdict: 'same' };
  if (before === 0) return { text: 'new', verdict: higherIsBetter ? 'better' : 'worse' };
  const relative = (after - before) / Math.abs(before);
  const better = higherIsBetter ? relative > 0 : relative < 0;
  return { text: `${relative > 0 ? '+' : ''}${(100 * relative).toFixed(1)}%`, verdict: better ? 'better' : 'worse' };
}

/** "calibrated (matmul efficiency 0.7, …)" or "presets". */
const calibrationText = (inputs) => (inputs.cal === '1' ? `calibrated (${calSummary(inputs)})` : 'presets');

function differingInputs(pinned, current) {
  const fields = FIELDS.filter((f) => pinned[f.key] !== current[f.key])
    .map((f) => ({ key: f.key, label: f.label, from: pinned[f.key] || 'preset', to: current[f.key] || 'preset' }));
  const [from, to] = [calibrationText(pinned), calibrationText(current)];
  return from === to ? fields : [...fields, { key: 'cal', label: 'Cluster parameters', from, to }];
}

export function Compare({ pinned, pinnedResult, pinnedError, inputs, result, onUnpin, onPin }) {
  const differences = differingInputs(pinned, inputs);
  return html`<section class="compare" id="compare" data-testid="compare" aria-labelledby="compare-title">
    <h2 id="compare-title">Pinned against current</h2>
    <p class="compare-actions">
      <button type="button" data-testid="repin" onClick=${onPin}>Pin current instead</button>
      <button type="button" data-testid="unpin" onClick=${onUnpin}>Unpin</button>
    </p>
    ${differences.length === 0
      ? html`<p class="plan" data-testid="compare-same">The inputs are the same: change any field to compare.</p>`
      : html`<ul class="compare-inputs" data-testid="compare-inputs">
          ${differences.map((d) => html`<li data-key=${d.key}>${d.label}: <s>${d.from}</s> → <strong>${d.to}</strong></li>`)}
        </ul>`}
    ${pinnedError && html`<p class="error" role="alert">Pinned: <strong>${pinnedError.path || 'input'}</strong>: ${pinnedError.message}</p>`}
    ${pinnedResult && result && html`<${CompareTable} pinned=${pinned} pinnedResult=${pinnedResult} inputs=${inputs}
      result=${result} />`}
  </section>`;
}

/** Yes or no, under which limit. */
const fitText = (fits, limit) => `${fits ? 'yes' : 'no'} (under ${limitText(limit)})`;

function CompareTable({ pinned, pinnedResult, inputs, result }) {
  const [pinnedLimit, limit] = [memoryLimit(pinned), memoryLimit(inputs)];
  const [fitsBefore, fitsAfter] = [resultFits(pinnedResult, pinnedLimit), resultFits(result, limit)];
  const fitChange = fitsBefore === fitsAfter ? { text: '=', verdict: 'same' }
    : fitsAfter ? { text: 'now fits', verdict: 'better' } : { text: 'no longer fits', verdict: 'worse' };
  const bothFit = fitsBefore && fitsAfter;
  return html`<${TableScroll} label="Pinned against current"><table class="compare-table" data-testid="compare-table">
      <caption>Pinned and current, and the change from one to the other${bothFit ? '' : '; figures of a plan that does not fit are greyed, and no change is better or worse'}</caption>
      <thead><tr><th scope="col"></th><th scope="col">Pinned</th><th scope="col">Current</th><th scope="col">Change</th></tr></thead>
      <tbody>
        <tr data-row="Fits" data-fits=${`${fitsBefore ? 1 : 0} ${fitsAfter ? 1 : 0}`}>
          <th scope="row"><strong>Fits</strong></th>
          <td>${fitText(fitsBefore, pinnedLimit)}</td>
          <td>${fitText(fitsAfter, limit)}</td>
          <td class=${`change ${fitChange.verdict}`} data-verdict=${fitChange.verdict}>${fitChange.text}</td>
        </tr>
        ${rows(pinnedResult, result).map(([group, label, get, show, higherIsBetter], i, all) => {
          const before = get(pinnedResult), after = get(result);
          const c = bothFit ? change(before, after, higherIsBetter) : { ...change(before, after, higherIsBetter), verdict: 'moot' };
          return html`${(i === 0 || all[i - 1][0] !== group) && html`<tr class="group"><th scope="rowgroup" colspan="4">${group}</th></tr>`}
            <tr data-row=${label}>
              <th scope="row">${label}</th>
              <td data-value=${before} class=${fitsBefore ? '' : 'unfit'}>${show(before)}</td>
              <td data-value=${after} class=${fitsAfter ? '' : 'unfit'}>${show(after)}</td>
              <td class=${`change ${c.verdict}`} data-verdict=${c.verdict}>${c.text}</td>
            </tr>`;
        })}
      </tbody>
    </table></${TableScroll}>`;
}
