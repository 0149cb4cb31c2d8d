// PlotFigure: one Observable Plot chart in a figure. Plot charts are
// immutable SVG, cheap to redraw, so the chart is drawn anew at the
// container's width whenever its data changes.
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';

/** Every chart's style: the page's colours in light and dark mode. */
export const CHART_STYLE = { background: 'transparent', color: 'currentColor', fontSize: '12px' };

export function PlotFigure({ draw, data, testid, label }) {
  const container = useRef(null);
  useEffect(() => {
    const element = container.current;
    const chart = draw(data, Math.max(320, Math.min(720, element.clientWidth || 640)));
    element.replaceChildren(chart);
    return () => chart.remove();
  }, [data]);
  return html`<figure class="chart" data-testid=${testid} aria-label=${label}>
    <div ref=${container}></div>
  </figure>`;
}
