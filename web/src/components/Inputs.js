// Inputs: the form, grouped as Model, Experts, Latent attention, Hardware,
// Training, Precision, Parallelism, Sharding. A field whose config path the
// core's error names is marked, with the message.
import { html } from 'htm/preact';
import { FIELDS, GROUPS, applies } from '../fields.js';
import { ModelImport } from './ModelImport.js';
import { calSummary } from '../calibration.js';

/** The calibrated cluster in use (Calibrate's Apply), with a way back to
 * the presets' values. */
function Calibrated({ inputs, locked, onChange }) {
  return html`<p class="notice" data-testid="calibrated">
    <strong>Calibrated to your runs</strong> over this GPU and cluster: ${calSummary(inputs)}.
    ${!locked && html` <button type="button" class="link" data-testid="calibrated-remove"
      onClick=${() => onChange('cal', '0')}>Remove</button>`}</p>`;
}

function optionsFor(field, presets) {
  if (field.options) return field.options;
  if (!presets) return [field.default];
  if (field.key === 'cluster') return ['none', ...presets.clusters.map((p) => p.name)];
  return (field.key === 'model' ? presets.models : presets.gpus).map((p) => p.name);
}

function defaultText(field) {
  if (field.kind === 'bool') return field.default === '1' ? 'on' : 'off';
  return field.default === '' || field.default === 'preset' ? "the preset's" : field.default;
}

export function Field({ field, value, presets, error, active, onChange }) {
  const id = `field-${field.key}`;
  const invalid = error && (error.path === field.path || error.path.startsWith(field.path + '.'));
  const describedBy = `${id}-help` + (invalid ? ` ${id}-error` : '');
  const common = { id, name: field.key, 'aria-invalid': invalid ? 'true' : 'false', 'aria-describedby': describedBy };
  let control;
  if (field.kind === 'bool') {
    control = html`<input type="checkbox" ...${common} checked=${value === '1'}
      onChange=${(e) => onChange(field.key, e.currentTarget.checked ? '1' : '0')} />`;
  } else if (field.kind === 'select') {
    control = html`<select ...${common} value=${value} onChange=${(e) => onChange(field.key, e.currentTarget.value)}>
      ${optionsFor(field, presets).map((o) => html`<option value=${o}>${field.optionLabels?.[o] ?? o}</option>`)}
    </select>`;
  } else {
    control = html`<input type="text" inputmode=${field.kind === 'number' ? 'decimal' : field.kind === 'list' ? 'text' : 'numeric'} autocomplete="off" ...${common} value=${value}
      onInput=${(e) => onChange(field.key, e.currentTarget.value.trim())} />`;
  }
  return html`
    <div class=${'field' + (invalid ? ' invalid' : '') + (active ? '' : ' inactive')}>
      <label for=${id}>${field.label}${field.unit && html` <span class="unit">(${field.unit})</span>`}</label>
      ${control}
      <small id=${`${id}-help`}>${field.help} Default ${defaultText(field)}.</small>
      ${invalid && html`<small class="field-error" id=${`${id}-error`}>${error.message}</small>`}
    </div>`;
}

/** Groups that only some models use. */
const OPTIONAL_GROUPS = ['Experts', 'Latent attention'];

/** locked: read-only (an embed locked by its author); a disabled outer
 * fieldset disables every control in it. */
export function Inputs({ inputs, presets, error, locked, onChange, onImport }) {
  return html`
    <form class="inputs" onSubmit=${(e) => e.preventDefault()}>
      <fieldset class="all-inputs" disabled=${locked} aria-label=${locked ? 'Inputs (read-only)' : 'Inputs'}>
      ${GROUPS.map((group) => {
        const fields = FIELDS.filter((f) => f.group === group).map((f) => html`
            <${Field} field=${f} value=${inputs[f.key]} presets=${presets} error=${error}
              active=${applies(f, inputs, presets)} onChange=${onChange} />`);
        // a group no field of which applies (experts on a dense model) stays
        // folded until opened, unless the core's error names one of its fields
        const folded = OPTIONAL_GROUPS.includes(group)
          && !FIELDS.some((f) => f.group === group && (applies(f, inputs, presets) || error?.path?.startsWith(f.path)));
        return html`
        <fieldset>
          <legend>${group}</legend>
          ${group === 'Model' && !locked && html`<${ModelImport} onImport=${onImport} />`}
          ${group === 'Hardware' && inputs.cal === '1' && html`<${Calibrated} inputs=${inputs} locked=${locked}
            onChange=${onChange} />`}
          ${folded ? html`<details class="folded" data-testid=${`group-${group}`}><summary>Not used by this model; open to set</summary>${fields}</details>` : fields}
        </fieldset>`;
      })}
      </fieldset>
    </form>`;
}
