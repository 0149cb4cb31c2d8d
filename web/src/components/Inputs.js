// Inputs: the form, grouped as Model, Experts, Latent attention, Hardware,
// Training, Precision, Parallelism, Sharding. A field whose text does not
// read (fields.js fieldProblem) is marked with the page's message; a field
// the core's error is about (fields.js errorFields) with the core's.
import { html } from 'htm/preact';
import { FIELDS, GROUPS, applies, errorFields, fieldProblem, hardwareValue, presetValue } from '../fields.js';
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

/** The select's options as [value, label]: its own, or the core's presets
 * once listed (until then, the value it holds). A model that is not a
 * preset (an import, a link's mname) comes first, by its name; the preset
 * under it fills what it leaves unset. */
function optionsFor(field, presets, inputs) {
  const label = (o) => [o, field.optionLabels?.[o] ?? o];
  if (field.options) return field.options.map(label);
  let names = [inputs[field.key] ?? field.default];
  if (presets && field.key === 'cluster') names = ['none', ...presets.clusters.map((p) => p.name)];
  else if (presets) names = (field.key === 'model' ? presets.models : presets.gpus).map((p) => p.name);
  const named = field.key === 'model' && inputs.mname ? [[NAMED, `${inputs.mname} (imported)`]] : [];
  return [...named, ...names.map(label)];
}

/** The model select's value while a named model (mname) is shown. */
const NAMED = '';

function defaultText(field) {
  if (field.kind === 'bool') return field.default === '1' ? 'on' : 'off';
  return field.default === '' || field.default === 'preset' ? "the preset's" : field.default;
}

/** problem: the message to show on the field, or null; without it, the
 * field's own text's problem or the core's error at its path (the Search
 * panel's use). placeholder: the preset's value an empty field stands for. */
export function Field({ field, value, presets, inputs = {}, problem, error, placeholder = '', active, onChange }) {
  const id = `field-${field.key}`;
  if (problem === undefined) {
    const atPath = error && (error.path === field.path || error.path.startsWith(field.path + '.'));
    problem = fieldProblem(field, value) ?? (atPath ? error.message : null);
  }
  const invalid = problem !== null;
  const describedBy = `${id}-help` + (invalid ? ` ${id}-error` : '');
  const common = { id, name: field.key, 'aria-invalid': invalid ? 'true' : 'false', 'aria-describedby': describedBy };
  let control;
  if (field.kind === 'bool') {
    control = html`<input type="checkbox" ...${common} checked=${value === '1'}
      onChange=${(e) => onChange(field.key, e.currentTarget.checked ? '1' : '0')} />`;
  } else if (field.kind === 'select') {
    const named = field.key === 'model' && Boolean(inputs.mname);
    // a long imported name must not widen the form's column
    control = html`<select ...${common} value=${named ? NAMED : value} style="width: 100%; min-width: 0"
      onChange=${(e) => e.currentTarget.value !== NAMED && onChange(field.key, e.currentTarget.value)}>
      ${optionsFor(field, presets, inputs).map(([o, label]) => html`<option value=${o}>${label}</option>`)}
    </select>`;
  } else {
    const mode = field.kind === 'number' || field.kind === 'text' || field.counts ? 'text' : 'numeric';
    control = html`<input type="text" inputmode=${mode} autocomplete="off" ...${common} value=${value}
      placeholder=${placeholder} onInput=${(e) => onChange(field.key, e.currentTarget.value.trim())} />`;
  }
  return html`
    <div class=${'field' + (invalid ? ' invalid' : '') + (active ? '' : ' inactive')}>
      <label for=${id}>${field.label}${field.unit && html` <span class="unit">(${field.unit})</span>`}</label>
      ${control}
      <small id=${`${id}-help`}>${field.help}${field.counts ? ' Takes 8k, 1.5M, 2B, 2T or 1e12.' : ''} Default ${defaultText(field)}.</small>
      ${invalid && html`<small class="field-error" id=${`${id}-error`}>${problem}</small>`}
    </div>`;
}

/** Each field's message: its own text's problem first; else the core's
 * error where that error is about it, with the path's field named on the
 * others a rule between fields involves. */
export function fieldProblems(inputs, error) {
  const about = new Set(errorFields(error));
  const atPath = FIELDS.find((f) => f.path === error?.path);
  const problems = new Map();
  for (const f of FIELDS) {
    const own = fieldProblem(f, inputs[f.key]);
    if (own) problems.set(f.key, own);
    else if (about.has(f.key)) {
      problems.set(f.key, !atPath || atPath === f ? error.message : `${atPath.label}: ${error.message}`);
    }
  }
  return problems;
}

/** Groups that only some models use. */
const OPTIONAL_GROUPS = ['Experts', 'Latent attention'];

/** locked: read-only (an embed locked by its author); a disabled outer
 * fieldset disables every control in it. */
export function Inputs({ inputs, presets, error, locked, onChange, onImport }) {
  const problems = fieldProblems(inputs, error);
  const preset = presets?.models.find((m) => m.name === inputs.model);
  return html`
    <form class="inputs" onSubmit=${(e) => e.preventDefault()}>
      <fieldset class="all-inputs" disabled=${locked} aria-label=${locked ? 'Inputs (read-only)' : 'Inputs'}>
      ${GROUPS.map((group) => {
        const fields = FIELDS.filter((f) => f.group === group).map((f) => html`
            <${Field} field=${f} value=${inputs[f.key]} presets=${presets} inputs=${inputs}
              problem=${problems.get(f.key) ?? null}
              placeholder=${!f.optional ? '' : f.group === 'Custom hardware' ? hardwareValue(f, inputs, presets) : presetValue(f, preset)}
              active=${applies(f, inputs, presets)} onChange=${onChange} />`);
        // a group no field of which applies (experts on a dense model) stays
        // folded until opened, unless the core's error names one of its fields
        const folded = OPTIONAL_GROUPS.includes(group)
          && !FIELDS.some((f) => f.group === group && (applies(f, inputs, presets) || problems.has(f.key)));
        // the custom hardware stays folded until a field of it is set
        const custom = group === 'Custom hardware'
          && !FIELDS.some((f) => f.group === group && (inputs[f.key] !== '' || problems.has(f.key)));
        return html`
        <fieldset>
          <legend>${group}</legend>
          ${group === 'Model' && !locked && html`<${ModelImport} onImport=${onImport} />`}
          ${group === 'Hardware' && inputs.cal === '1' && html`<${Calibrated} inputs=${inputs} locked=${locked}
            onChange=${onChange} />`}
          ${folded ? html`<details class="folded" data-testid=${`group-${group}`}><summary>Not used by this model; open to set</summary>${fields}</details>`
            : custom ? html`<details class="folded" data-testid="group-custom-hardware"><summary>The presets' GPU and network; open to change their figures</summary>${fields}</details>`
            : fields}
        </fieldset>`;
      })}
      </fieldset>
    </form>`;
}
