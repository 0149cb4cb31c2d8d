// ConfigJson: the resolved config in the CLI's input format, so
// `trainplan estimate` reproduces exactly what the page shows.
import { html } from 'htm/preact';

export function ConfigJson({ config }) {
  return html`
    <details class="config-json">
      <summary>Config for the CLI (<code>trainplan estimate</code>)</summary>
      <pre data-testid="config-json">${JSON.stringify(config, null, 2)}</pre>
    </details>`;
}
