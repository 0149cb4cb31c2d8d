// TableScroll: a wide table in a box of its own that scrolls sideways on a
// narrow screen, instead of widening the page. The box takes the keyboard
// focus (arrow keys scroll it) and is named for screen readers, and shadows
// at its edges show that more of the table lies to the side.
import { html } from 'htm/preact';

export function TableScroll({ label, children }) {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label=${label}>${children}</div>`;
}
