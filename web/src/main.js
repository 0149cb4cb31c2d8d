import { render } from 'preact';
import { html } from 'htm/preact';
import { App } from './components/App.js';
import { MAX_WORKERS, createEngine, defaultWorkerCount } from './engine.js';

// ?workers=N (1-8) sets how many web workers share a search; by default one
// per core the browser offers, at most 8.
const asked = Number(new URLSearchParams(location.search).get('workers'));
const workers = Number.isInteger(asked) && asked >= 1 && asked <= MAX_WORKERS ? asked : defaultWorkerCount();

render(html`<${App} engine=${createEngine('wasm/worker.js', workers)} />`, document.getElementById('app'));
