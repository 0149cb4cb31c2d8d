// chartfile.js: a chart on the page as a standalone SVG or PNG file.
// Observable Plot draws each chart as an <svg> (with its own scoped
// <style>), and a colour legend, when there is one, as HTML swatches beside
// it (a colour ramp as a second SVG); the file puts either above the chart
// in one SVG, fixes the page's text and background colours (the page draws
// in currentColor, which a file has no page to inherit from), and leaves
// out hover tips.

const SWATCH_PX = 15;
const LEGEND_ROW_PX = 22;
const CHAR_PX = 7; // a 12 px sans-serif character, for laying out legend rows
const SVG_NS = 'http://www.w3.org/2000/svg';

function element(name, attributes, text) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The swatches of a Plot colour legend: [{color, label}]. */
function legendEntries(figure) {
  return [...figure.querySelectorAll('span[class$="-swatch"]')].map((span) => ({
    color: span.querySelector('svg')?.getAttribute('fill') || 'currentColor',
    label: span.textContent.trim(),
  }));
}

/** The opaque background the page shows behind `node`. */
function backgroundOf(node) {
  for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
    const color = getComputedStyle(n).backgroundColor;
    if (color && color !== 'transparent' && !/rgba\(.*,\s*0\)$/.test(color)) return color;
  }
  return '#ffffff';
}

/** The chart inside `figure` as SVG text, with its size. */
export function chartSvg(figure) {
  const chart = figure.querySelector('svg[viewBox]:not([class$="-ramp"])');
  const ramp = figure.querySelector('svg[class$="-ramp"]'); // a continuous colour legend
  const width = Number(chart.getAttribute('width'));
  const chartHeight = Number(chart.getAttribute('height'));
  const entries = legendEntries(figure);
  const root = element('svg', { xmlns: SVG_NS, width });
  const color = getComputedStyle(chart).color;
  root.append(element('rect', { width: '100%', height: '100%', fill: backgroundOf(figure) }));

  // legend rows, wrapped at the chart's width
  let x = 0, y = 0;
  for (const { color: fill, label } of entries) {
    const w = SWATCH_PX + 6 + label.length * CHAR_PX + 18;
    if (x > 0 && x + w > width) {
      x = 0;
      y += LEGEND_ROW_PX;
    }
    root.append(element('rect', { x: x + 4, y: y + 4, width: SWATCH_PX, height: SWATCH_PX, fill }));
    root.append(element('text', { x: x + 4 + SWATCH_PX + 6, y: y + 16, fill: color,
      'font-family': 'system-ui, sans-serif', 'font-size': 12 }, label));
    x += w;
  }
  let legendHeight = entries.length > 0 ? y + LEGEND_ROW_PX + 6 : 0;
  if (ramp) {
    const copy = ramp.cloneNode(true);
    copy.setAttribute('y', legendHeight);
    copy.style.color = color;
    root.append(copy);
    legendHeight += Number(ramp.getAttribute('height')) + 6;
  }

  const copy = chart.cloneNode(true);
  copy.querySelectorAll('[aria-label=tip]').forEach((tip) => tip.remove());
  copy.setAttribute('y', legendHeight);
  copy.style.color = color;
  copy.style.background = 'none';
  root.append(copy);
  const height = chartHeight + legendHeight;
  root.setAttribute('height', height);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  return { text: new XMLSerializer().serializeToString(root), width, height };
}

/** The same chart as a PNG blob at `scale` device pixels per CSS pixel. */
export async function chartPng(figure, scale = 2) {
  const { text, width, height } = chartSvg(figure);
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const context = canvas.getContext('2d');
    context.scale(scale, scale);
    context.drawImage(image, 0, 0, width, height);
    return await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
