// PlotFigure: one Observable Plot chart in a figure, with buttons that save
// it as SVG or PNG. Plot charts are immutable SVG, cheap to redraw, so the
// chart is drawn anew at the container's width whenever its data changes.
// Plot (with d3, most of the page's script) is loaded on its own, in
// parallel with the WebAssembly core, so the page's first paint does not
// wait for it: draw(Plot, data, width) gets the module once it is there.
import { html } from 'htm/preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { chartPng, chartSvg } from '../chartfile.js';
import { download } from '../exports.js';

/** Every chart's style: the page's colours in light and dark mode. */
export const CHART_STYLE = { background: 'transparent', color: 'currentColor', fontSize: '12px' };

let plotModule = null;
/** Observable Plot, fetched once; main.js asks for it at start-up. */
export const loadPlot = () => (plotModule ??= import('../plot.js'));

export function PlotFigure({ draw, data, testid, label }) {
  const container = useRef(null);
  // A layout effect: once Plot is loaded the chart is drawn before the
  // browser paints the render that brought its data, so figures and charts
  // appear together (and ahead of the work plain effects start, the search).
  useLayoutEffect(() => {
    let live = true;
    loadPlot().then((Plot) => {
      const element = container.current;
      if (!live || !element) return;
      // drawn at the container's width (down to a phone's), so that text
      // keeps its size instead of being scaled down with the SVG
      const chart = draw(Plot, data, Math.max(260, Math.min(720, element.clientWidth || 640)));
      // Each chart is one image to assistive technology, named by its label;
      // its figures are in the tables beside it. Plot names its groups of
      // marks with aria-label ("bar", "rule"), which ARIA allows only on an
      // element with a role: they get theirs.
      for (const svg of chart.matches('svg') ? [chart] : chart.querySelectorAll(':scope > svg')) {
        svg.setAttribute('role', 'img');
        svg.setAttribute('aria-label', label);
      }
      for (const g of chart.querySelectorAll('g[aria-label]')) g.setAttribute('role', 'group');
      element.replaceChildren(chart);
    });
    return () => { live = false; };
  }, [data, label]);
  const name = `trainplan-${testid}`;
  const saveSvg = () => download(`${name}.svg`, chartSvg(container.current).text, 'image/svg+xml');
  const savePng = async () => download(`${name}.png`, await chartPng(container.current));
  return html`<figure class="chart" data-testid=${testid} aria-label=${label}>
    <div ref=${container}></div>
    <figcaption class="chart-files">Save chart:
      <button type="button" class="link" data-testid="save-svg" onClick=${saveSvg}>SVG</button>
      <button type="button" class="link" data-testid="save-png" onClick=${savePng}>PNG</button>
    </figcaption>
  </figure>`;
}
