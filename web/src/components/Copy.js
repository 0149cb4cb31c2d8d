// Copy: a copy button that writes text to the clipboard and says so, and
// where the clipboard is refused (an iframe without permission, plain http)
// selects the text on the page so the keyboard can copy it.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';

/** Selects the contents of an input, textarea or any other element. */
function selectText(element) {
  if (typeof element.select === 'function') {
    element.select();
    return;
  }
  const range = document.createRange();
  range.selectNodeContents(element);
  getSelection().removeAllRanges();
  getSelection().addRange(range);
}

export function CopyButton({ text, target, testid }) {
  const [status, setStatus] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setStatus('Copied.');
    } catch {
      selectText(document.getElementById(target));
      setStatus('The clipboard is not available here: the text is selected, copy it with the keyboard.');
    }
  };
  return html`<button type="button" data-testid=${`${testid}-copy`} onClick=${copy}>Copy</button>
    <small role="status" data-testid=${`${testid}-status`}>${status}</small>`;
}
