// plot.js: the parts of Observable Plot the charts use, loaded on demand
// (PlotFigure) so that bundling keeps only these and their d3 pieces.
export { barX, barY, cell, dot, line, plot, ruleX, ruleY, text } from '@observablehq/plot';
