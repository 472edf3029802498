// Satori's service worker: keeps this version's own files (the page, its scripts, stylesheets,
// wasm modules and icons; the token tables once fetched) so a visited Satori opens, reads,
// searches and exports every chat with no network. Requests to anything else — the API servers
// the user configured — are never touched. scripts/postbuild.mjs writes dist/sw.js from this file,
// filling in the version and the file list.
//
// A new version installs in the background and waits: the page offers "Reload" and only the
// user's click ("skip-waiting") lets it take over, so nothing reloads in the middle of a reply.
const VERSION = '__SATORI_VERSION__';
const FILES = __SATORI_FILES__;
const CACHE = `satori-${VERSION}`;
// Fetched when first needed, then kept (large, and only needed for some models).
const ON_DEMAND = /\/tokens\/[^/]+$/;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(FILES.map((f) => new Request(f, { cache: 'reload' })))),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('satori-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('message', (event) => {
  if (event.data === 'skip-waiting') self.skipWaiting();
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  const scope = self.registration.scope;
  if (url.origin !== self.location.origin || !url.href.startsWith(scope)) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      // Any page of the app is this version's page (its files are the ones kept with it).
      const key = request.mode === 'navigate' ? scope : request;
      const kept = await cache.match(key, { ignoreSearch: request.mode === 'navigate' });
      if (kept) return kept;
      const response = await fetch(request);
      if (response.ok && ON_DEMAND.test(url.pathname)) await cache.put(request, response.clone());
      return response;
    })(),
  );
});
