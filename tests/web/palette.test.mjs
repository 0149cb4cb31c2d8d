// The page's colours against WCAG 2.1's contrast ratios, in light and dark
// mode (the custom properties of web/src/styles.css): every chart mark's
// colour 3:1 against the page (1.4.11, non-text contrast), and the text
// colours, muted text and links included, 4.5:1 against the page and the
// panels (1.4.3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.mjs';
import { MEMORY_COLORS, TIME_ITEMS } from '../../web/src/items.js';

/** WCAG's relative luminance of "#rrggbb". */
function luminance(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a, b) {
  const [dark, light] = [luminance(a), luminance(b)].sort((x, y) => x - y);
  return (light + 0.05) / (dark + 0.05);
}

test('the contrast formula gives WCAG\'s figures', () => {
  assert.equal(contrast('#000000', '#ffffff'), 21);
  assert.equal(contrast('#777777', '#ffffff').toFixed(2), '4.48'); // the classic just-failing grey
});

/** The colour custom properties of the light and the dark theme. */
function themes() {
  const css = readFileSync(join(ROOT, 'web', 'src', 'styles.css'), 'utf8');
  const dark = css.indexOf('prefers-color-scheme: dark');
  const props = (text) => Object.fromEntries([...text.matchAll(/--([a-z]+):\s*(#[0-9a-f]{6})/g)].map((m) => [m[1], m[2]]));
  return { light: props(css.slice(0, dark)), dark: props(css.slice(dark, css.indexOf('}', css.indexOf('{', dark) + 1) + 1)) };
}

test('every chart colour has 3:1 against the page, light and dark', () => {
  const marks = [...Object.entries(MEMORY_COLORS), ...TIME_ITEMS.map(([, label, colour]) => [label, colour])];
  for (const [name, theme] of Object.entries(themes())) {
    for (const [label, colour] of marks) {
      const ratio = contrast(colour, theme.bg);
      assert.ok(ratio >= 3, `${name}: ${label} ${colour} is ${ratio.toFixed(2)}:1 on ${theme.bg}`);
    }
  }
});

test('text colours have 4.5:1 against the page and the panels, light and dark', () => {
  for (const [name, theme] of Object.entries(themes())) {
    assert.ok(theme.bg && theme.panel && theme.muted, `${name} theme read`);
    for (const text of ['fg', 'muted', 'accent', 'red', 'green', 'yellow']) {
      for (const ground of ['bg', 'panel']) {
        const ratio = contrast(theme[text], theme[ground]);
        assert.ok(ratio >= 4.5, `${name}: --${text} on --${ground} is ${ratio.toFixed(2)}:1`);
      }
    }
  }
});
