// Share: the link to this exact page (the inputs live in its hash) and the
// code that embeds it in a wiki or doc page, optionally read-only. Each has a
// copy button; the text stays selectable where the clipboard is refused.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { embedCode } from '../page.js';
import { CopyButton } from './Copy.js';

function CopyField({ id, label, text }) {
  return html`<div class="copy-field">
    <label for=${id}>${label}</label>
    <input type="text" id=${id} readonly value=${text} onFocus=${(e) => e.currentTarget.select()} />
    <${CopyButton} text=${text} target=${id} testid=${id} />
  </div>`;
}

export function Share({ hash }) {
  const [locked, setLocked] = useState(false);
  const base = location.origin + location.pathname;
  return html`<details class="share" data-testid="share">
    <summary>Share or embed</summary>
    <${CopyField} id="share-link" label="Link to these inputs and results" text=${base + hash} />
    <${CopyField} id="share-embed" label="Embed code (an iframe for internal docs)" text=${embedCode(base, hash, locked)} />
    <label class="inline"><input type="checkbox" id="share-lock" checked=${locked}
      onChange=${(e) => setLocked(e.currentTarget.checked)} /> Read-only embed (inputs locked)</label>
  </details>`;
}
