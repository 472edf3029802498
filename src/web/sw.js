// Satori's service worker: keeps this version's own files (the page, its scripts, stylesheets,
// wasm modules and icons; the token tables once fetched) so a visited Satori opens, reads,
// searches and exports every chat with no network. Requests to anything else — the API servers
// the user configured — are never touched. scripts/postbuild.mjs writes dist/sw.js from this file,
// filling in the version and the files with their SHA-256 (an install that gets other bytes —
// a deploy half done, a stale copy on the way — fails and is tried again on the next visit).
//
// A new version installs in the background and waits: the page offers "Reload" and only a
// user's click ("skip-waiting") lets it take over. The version before it is kept, so a tab still
// running it finds its files.
const VERSION = '__SATORI_VERSION__';
const FILES = __SATORI_FILES__; // [path relative to the scope, "sha256-…"]
const SCOPE = self.registration.scope;
// Caches are shared by every path of the origin: each copy of Satori names its own.
const PREFIX = `satori:${SCOPE}:`;
const CACHE = PREFIX + VERSION;
const BORN = new Request(`${SCOPE}__satori_installed`);
// The page itself: the scope's root and its index.html.
const PAGES = new Set([SCOPE, `${SCOPE}index.html`]);
// Fetched when first needed, then kept: the token tables (large, and only needed for some
// models), mermaid (large, and only needed for a chat with a diagram) and the PDF reader (only
// needed once a PDF is attached: `attach-<hash>/pdf-…`).
const ON_DEMAND = [`${SCOPE}tokens/`, `${SCOPE}mermaid-`];
const onDemand = (href) =>
  ON_DEMAND.some((p) => href.startsWith(p)) || (href.startsWith(`${SCOPE}attach-`) && href.includes('/pdf-'));
// The in-browser model's pieces: its worker keeps them in a cache of its own.
const MODEL = `${SCOPE}model/`;

/** A response the cache can answer a page load with (not marked as redirected). */
async function plain(response) {
  if (!response.redirected) return response;
  return new Response(await response.blob(), { status: response.status, statusText: response.statusText, headers: response.headers });
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await Promise.all(
        FILES.map(async ([file, integrity]) => {
          const url = new URL(file, SCOPE).href;
          const response = await fetch(url, { cache: 'reload', integrity });
          if (!response.ok) throw new Error(`${url}: ${response.status}`);
          await cache.put(url, await plain(response));
        }),
      );
      await cache.put(BORN, new Response(String(Date.now())));
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      // Keep this version and the newest one before it (a tab may still run it).
      const older = [];
      for (const name of await caches.keys()) {
        if (!name.startsWith(PREFIX) || name === CACHE) continue;
        const born = await (await caches.open(name)).match(BORN);
        older.push([Number(born ? await born.text() : 0), name]);
      }
      older.sort((a, b) => b[0] - a[0]);
      await Promise.all(older.slice(1).map(([, name]) => caches.delete(name)));
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('message', (event) => {
  if (event.data === 'skip-waiting') self.skipWaiting();
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  const page = request.mode === 'navigate';
  url.search = '';
  url.hash = '';
  if (page ? !PAGES.has(url.href) : !url.href.startsWith(SCOPE) || url.origin !== self.location.origin) return;
  if (url.href.startsWith(MODEL)) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const kept = page ? await cache.match(SCOPE) : (await cache.match(request)) || (await matchOlder(request));
      if (kept) return kept;
      const response = await fetch(request);
      // Kept if there is room; answered either way.
      if (response.ok && onDemand(url.href)) await cache.put(request, response.clone()).catch(() => {});
      return response;
    })(),
  );
});

/** `request` in the version kept from before (a tab still running it asks for its own files). */
async function matchOlder(request) {
  for (const name of await caches.keys()) {
    if (name.startsWith(PREFIX) && name !== CACHE) {
      const hit = await (await caches.open(name)).match(request);
      if (hit) return hit;
    }
  }
  return undefined;
}
