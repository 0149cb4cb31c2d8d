// Builds web/ into ../public as a static site with relative paths, so any
// static host can serve it under any sub-path. web/static is copied as is:
// ci/build.sh puts the WebAssembly core and its worker in static/wasm.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  publicDir: 'static',
  build: {
    outDir: '../public',
    emptyOutDir: false, // ci/build.sh cleans it, keeping public/README.md
    target: 'es2020',
  },
  preview: { host: '127.0.0.1' },
});
