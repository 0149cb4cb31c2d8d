import { render } from 'preact';
import { html } from 'htm/preact';
import { App } from './components/App.js';
import { MAX_WORKERS, createEngine, defaultWorkerCount } from './engine.js';
import { pageOptions } from './page.js';
import { loadPlot } from './components/PlotFigure.js';
import { initialState } from './state.js';
import { toConfig } from './fields.js';

loadPlot(); // the charts' library loads while the core starts and the form renders
const options = pageOptions(location.search, defaultWorkerCount(), MAX_WORKERS);
document.body.classList.toggle('embed', options.embed);
// an embed runs no search: one worker is enough
const engine = createEngine('wasm/worker.js', options.embed ? 1 : options.workers, window.trainplanFirstWorker);
// The link is read once: the first estimate starts now, so the core works
// on it while the page renders its form, and App's own request for it gets
// the same reply.
const initial = initialState(location.hash);
engine.estimate(toConfig(initial.inputs));
render(html`<${App} engine=${engine} initial=${initial} embed=${options.embed} locked=${options.locked} />`,
  document.getElementById('app'));

// Offline once loaded: the service worker caches the site (static/sw.js).
// It registers once the page has loaded and settled, so that caching every
// file does not compete with the first result.
if ('serviceWorker' in navigator && location.protocol.startsWith('http')) {
  addEventListener('load', () => setTimeout(() => {
    navigator.serviceWorker.register('sw.js')
      .catch((e) => console.warn('trainplan: no offline copy (service worker refused):', e.message));
  }, 1500));
}
