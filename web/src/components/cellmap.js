// cellmap.js: the one heatmap both what-if charts draw (plan dimensions in
// Heatmap.js, hardware axes in Sweep.js): band cells on x and y, the cells
// with a figure filled by it and labelled, the others greyed with a reason.
import { CHART_STYLE } from './PlotFigure.js';

/**
 * @param {object} Plot Observable Plot
 * @param {object} o
 *   cells      [{x, y, ...}]
 *   filled     (c) => whether c has a figure to colour by
 *   value      (c) => its figure; label (c) => the text in the cell (both for filled cells)
 *   ink        (c) => a filled cell's text colour, dark on light cells (white by default)
 *   empty      (c) => the text of a cell without a figure; why (c) => its tooltip
 *   tip        (c) => a filled cell's tooltip
 *   x, y       axis labels (y may be null); color: Plot's color options
 *   marks      more marks drawn on top (an outline)
 * @param {number} width
 */
export function cellMap(Plot, { cells, filled, value, label, ink = () => 'white', empty, why, tip, x, y, color, marks = [] }, width) {
  return Plot.plot({
    width: Math.min(width, 620),
    height: 60 + 42 * new Set(cells.map((c) => c.y)).size,
    marginLeft: 64,
    marginBottom: 44,
    style: CHART_STYLE,
    x: { type: 'band', label: x, labelAnchor: 'center', labelOffset: 36 },
    y: { type: 'band', label: y, reverse: true },
    // the ramp's end ticks centred on its ends: room for half a label each side
    color: { type: 'linear', legend: true, marginLeft: 16, marginRight: 16, ...color },
    marks: [
      Plot.cell(cells.filter((c) => !filled(c)), { x: 'x', y: 'y', fill: 'currentColor', fillOpacity: 0.08, inset: 1,
        title: why }),
      Plot.cell(cells.filter(filled), { x: 'x', y: 'y', fill: value, inset: 1, tip: true, title: tip }),
      Plot.text(cells, { x: 'x', y: 'y', text: (c) => (filled(c) ? label(c) : empty(c)),
        fill: (c) => (filled(c) ? ink(c) : 'currentColor'),
        stroke: (c) => (!filled(c) ? 'none' : ink(c) === 'white' ? 'black' : 'white'),
        strokeOpacity: 0.35, strokeWidth: 2, paintOrder: 'stroke', fontSize: 12 }),
      ...marks,
    ],
  });
}
