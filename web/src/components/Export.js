// Export: the estimate as files (the config the CLI reads and the estimate
// it prints) and as launch settings for Megatron-LM, DeepSpeed and
// torchtitan, each with what the trainer cannot express listed under it,
// the framework profile the estimate used, and a warning above all of it
// when the plan does not fit.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { download, jsonFile } from '../exports.js';
import { deepspeedConfig, fitWarning, megatronArgs, torchtitanToml } from '../launch.js';
import { CopyButton } from './Copy.js';

const LAUNCHERS = [
  ['megatron', 'Megatron-LM', megatronArgs, 'Arguments for pretrain_gpt.py'],
  ['deepspeed', 'DeepSpeed', deepspeedConfig, 'The config JSON for deepspeed.initialize (DeepSpeed reads its // comments)'],
  ['torchtitan', 'torchtitan', torchtitanToml, 'Sections of the job config TOML'],
];

export function Export({ result }) {
  const [shown, setShown] = useState('megatron');
  const [, label, make, what] = LAUNCHERS.find(([key]) => key === shown);
  const { text, notes } = make(result);
  const warning = fitWarning(result);
  return html`<details class="export" data-testid="export">
    <summary>Export and launch <small data-testid="export-summary-profile">${
      `(${result.config.training.framework} profile${warning ? ', plan does not fit' : ''})`}</small></summary>
    ${warning && html`<p class="error" role="alert" data-testid="export-warning">${warning}.</p>`}
    <p data-testid="export-profile">Estimated with the <strong>${result.config.training.framework}</strong> framework
      profile (Framework input): its defaults are in the figures, and each trainer below says where it differs.</p>
    <p class="export-files">
      <button type="button" data-testid="save-config"
        onClick=${() => download('trainplan-config.json', jsonFile(result.config))}>Config JSON</button>
      <button type="button" data-testid="save-estimate"
        onClick=${() => download('trainplan-estimate.json', jsonFile(result))}>Estimate JSON</button>
      <small>The config is what <code>trainplan estimate</code> reads; it prints the estimate file's figures.</small>
    </p>
    <div role="group" aria-label="Launch settings for" class="launchers">
      ${LAUNCHERS.map(([key, name]) => html`<button type="button" aria-pressed=${shown === key}
        data-testid=${`launch-${key}`} onClick=${() => setShown(key)}>${name}</button>`)}
    </div>
    <p class="plan">${what}, for this plan (${label}):</p>
    <pre id="launch-text" data-testid="launch-text" data-launcher=${shown}>${text}</pre>
    <div class="copy-line"><${CopyButton} text=${text} target="launch-text" testid="launch" /></div>
    ${notes.length > 0 && html`<ul class="launch-notes" data-testid="launch-notes">
      ${notes.map((n) => html`<li>${n}</li>`)}</ul>`}
  </details>`;
}
