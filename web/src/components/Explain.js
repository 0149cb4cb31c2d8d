// Explain: a disclosure under a number with its formula, the values that
// went into it, the result and the source of the formula (explain.js).
import { html } from 'htm/preact';

const number = (v) => (Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-3)
  ? v.toExponential(4) : v.toLocaleString('en-US', { maximumFractionDigits: 4 }));

export function Explain({ what, id, summary = 'how?' }) {
  return html`<details class="how" data-testid=${`how-${id}`}>
    <summary>${summary}</summary>
    <p class="formula"><strong>${what.title}</strong> = ${what.formula}</p>
    <table><tbody>
      ${what.values.map(([name, meaning, value]) => html`<tr><th scope="row">${name}</th>
        <td data-value=${value}>${number(value)}</td><td class="meaning">${meaning}</td></tr>`)}
    </tbody></table>
    <p>= <strong data-value=${what.reported}>${number(what.reported)}</strong> ${what.unit}</p>
    <p class="cite">Source: ${what.cite}</p>
  </details>`;
}
