/*
 * sw.js: makes the page work offline once it has loaded. On install it
 * caches every file of the build (precache.json, written by the build:
 * the page, its bundle, the worker and the WebAssembly core); afterwards
 * each request goes to the network first, refreshing the cache, and falls
 * back to the cache when the network fails. The page stays current online
 * and complete offline.
 */
const CACHE = 'trainplan';

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const files = await (await fetch('precache.json', { cache: 'no-store' })).json();
    const cache = await caches.open(CACHE);
    await cache.addAll(files);
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const response = await fetch(request);
      if (response.ok) await cache.put(request, response.clone());
      return response;
    } catch (error) {
      // The page's own address with a query is the cached page. Vary is
      // ignored: vite preview (ci/serve.sh) answers with "Vary: Origin", and
      // the module script's request carries an Origin that the install's
      // request did not, so a Vary-respecting match finds no bundle offline.
      const cached = await cache.match(request, { ignoreSearch: true, ignoreVary: true });
      if (cached) return cached;
      throw error;
    }
  })());
});
