// Builds web/ into ../public as a static site with relative paths, so any
// static host can serve it under any sub-path. web/static is copied as is:
// ci/build.sh puts the WebAssembly core and its worker in static/wasm. The
// build also writes precache.json, every file of the site, which the
// service worker (static/sw.js) caches so the page works offline.
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

export default defineConfig({
  base: './',
  publicDir: STATIC,
  plugins: [precacheList()],
  build: {
    outDir: '../public',
    emptyOutDir: false, // ci/build.sh cleans it, keeping public/README.md
    target: 'es2020',
  },
  preview: { host: '127.0.0.1' },
});
