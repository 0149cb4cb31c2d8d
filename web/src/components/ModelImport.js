// ModelImport: pick, drop or paste a Hugging Face config.json; its
// architecture fills the Model fields and names the model, and whatever was
// approximated or could not be mapped is listed.
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
  const readFile = async (file) => {
    if (!file) return;
    const source = await file.text();
    setText(source);
    run(source);
  };
  const onDrop = (e) => {
    e.preventDefault();
    readFile(e.dataTransfer?.files?.[0]);
  };
  return html`<details class="model-import" data-testid="model-import">
    <summary>Import a Hugging Face config.json</summary>
    <p><label for="hf-file">Choose the file</label>
      <input type="file" id="hf-file" data-testid="hf-file" accept=".json,application/json"
        onChange=${(e) => readFile(e.currentTarget.files?.[0])} /></p>
    <label for="hf-config">or drop or paste it here (Llama 2-4, Mistral, Mixtral, Qwen2-3 and their MoE, Gemma 2-3,
      DeepSeek V2-V3, Phi-3, GPT-2, GPT-NeoX)</label>
    <textarea id="hf-config" rows="5" spellcheck="false" value=${text}
      onInput=${(e) => setText(e.currentTarget.value)} onDragOver=${(e) => e.preventDefault()} onDrop=${onDrop}></textarea>
    <button type="button" data-testid="hf-import" onClick=${() => run(text)}>Import</button>
    ${report && (report.error
      ? html`<p class="field-error" role="alert" data-testid="hf-error">${report.error}</p>`
      : html`<div role="status" data-testid="hf-report">
          <p>Imported <strong>${report.fields.mname}</strong>: ${Object.entries(report.fields)
            .filter(([k]) => k !== 'mname').map(([k, v]) => `${k} ${v}`).join(', ')}.</p>
          ${report.notes.length > 0 && html`<p>Approximated or left out:</p>
            <ul data-testid="hf-notes">${report.notes.map((n) => html`<li>${n}</li>`)}</ul>`}
        </div>`)}
  </details>`;
}
