// MemoryChart: per-GPU memory of each pipeline stage as stacked bars, with the
// GPU's capacity and the 80% line of Fujii et al. 2024. Drawn by Observable
// Plot as SVG inside a PlotFigure.
import { html } from 'htm/preact';
import { GIB } from '../format.js';
import { memoryItems } from '../items.js';
import { CHART_STYLE, PlotFigure } from './PlotFigure.js';

// Tableau 10, colour-blind safe order; an item keeps its colour with or without experts
const COLORS = { Weights: '#4e79a7', Gradients: '#f28e2b', Optimizer: '#e15759', Activations: '#76b7b2',
  Experts: '#59a14f', Other: '#9c755f' };

function memoryChart(Plot, result, width) {
  const { memory } = result;
  const items = memoryItems(result);
  const labels = items.map(([, label]) => label);
  const stages = memory.stages.map((s) => s.name);
  const rows = memory.stages.flatMap((s) =>
    items.map(([, label, bytes]) => ({ stage: s.name, item: label, gib: bytes(s) / GIB })));
  const capacity = memory.capacity_bytes / GIB;
  const safe = capacity * memory.safe_fraction;
  const top = Math.max(memory.peak_bytes / GIB, capacity) * 1.08;
  return Plot.plot({
    width,
    height: 340,
    marginLeft: 56,
    marginBottom: 44,
    style: CHART_STYLE,
    x: { domain: stages, label: 'Pipeline stage', labelOffset: 38, padding: 0.35 },
    y: { domain: [0, top], label: 'Memory per GPU (GiB)', grid: true },
    color: { domain: labels, range: labels.map((label) => COLORS[label]), legend: true },
    marks: [
      Plot.barY(rows, {
        x: 'stage', y: 'gib', fill: 'item', order: labels,
        tip: { format: { gib: (v) => `${v.toFixed(2)} GiB`, x: true, fill: true } },
        channels: { gib: { value: 'gib', label: 'GiB' } },
      }),
      Plot.ruleY([capacity], { stroke: '#d62728', strokeWidth: 2 }),
      Plot.ruleY([safe], { stroke: '#e8a33d', strokeWidth: 2, strokeDasharray: '6 4' }),
      Plot.text([{ y: capacity, label: `capacity ${capacity.toFixed(1)} GiB` }],
        { y: 'y', text: 'label', frameAnchor: 'right', dy: -7, fill: '#d62728' }),
      Plot.text([{ y: safe, label: `80% ${safe.toFixed(1)} GiB` }],
        { y: 'y', text: 'label', frameAnchor: 'right', dy: -7, fill: '#b7791f' }),
      Plot.ruleY([0]),
    ],
  });
}

export function MemoryChart({ result }) {
  return html`<${PlotFigure} draw=${memoryChart} data=${result} testid="memory-chart"
    label="Per-GPU memory by pipeline stage" />`;
}
