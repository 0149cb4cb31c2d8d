import { render } from 'preact';
import { html } from 'htm/preact';
import { App } from './components/App.js';
import { createEngine } from './engine.js';

render(html`<${App} engine=${createEngine()} />`, document.getElementById('app'));
