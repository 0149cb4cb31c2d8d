// Explain: a disclosure under a number with its formula, the values that
// went into it, the result and the source of the formula (explain.js). Its
// body, and the explanation itself (how(item), explain.js explainer), is
// worked out only while it is open: a page holds some twenty of them, and
// an estimate redraws them all.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { count } from '../format.js';

const number = (v) => (Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(4) : count(v, 4));

export function Explain({ how, item, id, summary = 'how?' }) {
  const [open, setOpen] = useState(false);
  const what = open && how(item);
  return html`<details class="how" data-testid=${`how-${id}`} onToggle=${(e) => setOpen(e.currentTarget.open)}>
    <summary>${summary}</summary>
    ${what && html`
      <p class="formula"><strong>${what.title}</strong> = ${what.formula}</p>
      <table><tbody>
        ${what.values.map(([name, meaning, value]) => html`<tr><th scope="row">${name}</th>
          <td data-value=${value}>${number(value)}</td><td class="meaning">${meaning}</td></tr>`)}
      </tbody></table>
      <p>= <strong data-value=${what.reported}>${number(what.reported)}</strong> ${what.unit}</p>
      <p class="cite">Source: ${what.cite}</p>`}
  </details>`;
}
