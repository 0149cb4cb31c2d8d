// References: the papers the page's formulas and help texts cite, each with
// its authors, title, venue, year and arXiv id (references.js).
import { html } from 'htm/preact';
import { REFERENCES } from '../references.js';

export function References() {
  return html`<section class="references" id="references" aria-labelledby="references-title" data-testid="references">
    <h2 id="references-title">References</h2>
    <ul>${REFERENCES.map((r) => html`<li data-key=${r.key}>
      <strong>${r.key}</strong>: ${r.authors.replace(/\.?$/, '.')} <cite>${r.title}</cite>. ${r.venue}, ${r.year}.${' '}
      <a href=${`https://arxiv.org/abs/${r.arxiv}`} rel="noopener">arXiv:${r.arxiv}</a></li>`)}
    </ul>
  </section>`;
}
