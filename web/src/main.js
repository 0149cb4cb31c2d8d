import { render } from 'preact';
import { html } from 'htm/preact';
import { App } from './components/App.js';
import { MAX_WORKERS, createEngine, defaultWorkerCount } from './engine.js';
import { pageOptions } from './page.js';
import { loadPlot } from './components/PlotFigure.js';
import { initialState, reducer } from './state.js';
import { toConfig } from './fields.js';

const plotLoaded = loadPlot(); // the charts' library loads while the core starts
const options = pageOptions(location.search, defaultWorkerCount(), MAX_WORKERS);
document.body.classList.toggle('embed', options.embed);
// an embed runs no search: one worker is enough
const engine = createEngine('wasm/worker.js', options.embed ? 1 : options.workers, window.trainplanFirstWorker);

// The page renders once its first result and the charts' library are in,
// or after FIRST_RENDER_WAIT_MS without them, whichever is sooner. Two
// reasons. A request reaches the worker only after the main thread has
// acknowledged the worker's start, so rendering the form first (a 200-300 ms
// task on a small machine) held the first estimate back by as much; left
// idle, the main thread lets it through at once. And the first render then
// draws figures and charts together, in one layout and one paint instead of
// two. App's own request for the same config gets this reply.
const FIRST_RENDER_WAIT_MS = 600;
const initial = initialState(location.hash);
const firstReply = engine.estimate(toConfig(initial.inputs));
const waited = new Promise((resolve) => setTimeout(resolve, FIRST_RENDER_WAIT_MS));
const bothIn = Promise.all([firstReply, plotLoaded]).catch(() => null); // a failure shows in App
Promise.race([bothIn, waited]).then((ready) => {
  const start = ready ? reducer(initial, { type: 'estimated', reply: ready[0] }) : initial;
  const root = document.getElementById('app');
  root.replaceChildren(); // index.html's loading line
  render(html`<${App} engine=${engine} initial=${start} embed=${options.embed} locked=${options.locked} />`, root);
});

// Offline once loaded: the service worker caches the site (static/sw.js).
// It registers once the page has loaded and settled, so that caching every
// file does not compete with the first result.
if ('serviceWorker' in navigator && location.protocol.startsWith('http')) {
  addEventListener('load', () => setTimeout(() => {
    navigator.serviceWorker.register('sw.js')
      .catch((e) => console.warn('trainplan: no offline copy (service worker refused):', e.message));
  }, 1500));
}
