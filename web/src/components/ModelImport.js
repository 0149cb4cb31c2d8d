// ModelImport: paste or drop a Hugging Face config.json; its architecture
// fills the Model fields, and whatever could not be mapped is listed.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { importHfConfig } from '../hfconfig.js';

export function ModelImport({ onImport }) {
  const [text, setText] = useState('');
  const [report, setReport] = useState(null);
  const run = (source) => {
    const result = importHfConfig(source);
    setReport(result);
    if (!result.error) onImport(result.fields);
  };
  const onDrop = async (e) => {
    e.preventDefault();
    const file = e.dataTransfer?.files?.[0];
    if (!file) return;
    const source = await file.text();
    setText(source);
    run(source);
  };
  return html`<details class="model-import" data-testid="model-import">
    <summary>Import a Hugging Face config.json</summary>
    <label for="hf-config">Paste or drop the file (Llama, Mistral, Qwen2, Mixtral, GPT-2, GPT-NeoX)</label>
    <textarea id="hf-config" rows="5" spellcheck="false" value=${text}
      onInput=${(e) => setText(e.currentTarget.value)} onDragOver=${(e) => e.preventDefault()} onDrop=${onDrop}></textarea>
    <button type="button" data-testid="hf-import" onClick=${() => run(text)}>Import</button>
    ${report && (report.error
      ? html`<p class="field-error" role="alert" data-testid="hf-error">${report.error}</p>`
      : html`<div role="status" data-testid="hf-report">
          <p>Set: ${Object.entries(report.fields).map(([k, v]) => `${k} ${v}`).join(', ')}.</p>
          ${report.notes.length > 0 && html`<ul>${report.notes.map((n) => html`<li>${n}</li>`)}</ul>`}
        </div>`)}
  </details>`;
}
