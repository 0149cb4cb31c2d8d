// MemoryChart: per-GPU memory of each pipeline stage as stacked bars, with the
// GPU's capacity and the memory limit a plan must stay under to fit (fit.js;
// 80% by default, after Fujii et al. 2024). Drawn by Observable Plot as SVG
// inside a PlotFigure.
import { html } from 'htm/preact';
import { useMemo } from 'preact/hooks';
import { GIB } from '../format.js';
import { limitText } from '../fit.js';
import { MEMORY_COLORS, memoryItems } from '../items.js';
import { CHART_STYLE, PlotFigure } from './PlotFigure.js';

function memoryChart(Plot, { result, limit }, width) {
  const { memory } = result;
  const items = memoryItems(result);
  const labels = items.map(([, label]) => label);
  const stages = memory.stages.map((s) => s.name);
  const rows = memory.stages.flatMap((s) =>
    items.map(([, label, bytes]) => ({ stage: s.name, item: label, gib: bytes(s) / GIB })));
  const capacity = memory.capacity_bytes / GIB;
  const safe = capacity * limit;
  const top = Math.max(memory.peak_bytes / GIB, capacity) * 1.08;
  return Plot.plot({
    width,
    height: 340,
    marginLeft: 56,
    marginBottom: 44,
    style: CHART_STYLE,
    x: { domain: stages, label: 'Pipeline stage', labelOffset: 38, padding: 0.35 },
    y: { domain: [0, top], label: 'Memory per GPU (GiB)', grid: true },
    color: { domain: labels, range: labels.map((label) => MEMORY_COLORS[label]), legend: true },
    marks: [
      Plot.barY(rows, {
        x: 'stage', y: 'gib', fill: 'item', order: labels,
        tip: { format: { gib: (v) => `${v.toFixed(2)} GiB`, x: true, fill: true } },
        channels: { gib: { value: 'gib', label: 'GiB' } },
      }),
      // the lines in the text colour, told apart by dash and label: no hue
      // to tell from the bars'
      Plot.ruleY([capacity], { stroke: 'currentColor', strokeWidth: 2 }),
      Plot.ruleY([safe], { stroke: 'currentColor', strokeWidth: 2, strokeDasharray: '6 4' }),
      Plot.text([{ y: capacity, label: `capacity ${capacity.toFixed(1)} GiB` }],
        { y: 'y', text: 'label', frameAnchor: 'right', dy: -7, fill: 'currentColor', className: 'halo' }),
      Plot.text([{ y: safe, label: `limit ${limitText(limit)}: ${safe.toFixed(1)} GiB` }],
        { y: 'y', text: 'label', frameAnchor: 'right', dy: safe / capacity > 0.93 ? 9 : -7, fill: 'currentColor', className: 'halo' }),
      Plot.ruleY([0]),
    ],
  });
}

/** limit: the memory limit as a fraction of capacity (fit.js). */
export function MemoryChart({ result, limit }) {
  const data = useMemo(() => ({ result, limit }), [result, limit]);
  return html`<${PlotFigure} draw=${memoryChart} data=${data} testid="memory-chart"
    label="Per-GPU memory by pipeline stage" />`;
}
