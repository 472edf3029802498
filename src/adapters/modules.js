// Loads Satori's lazy wasm modules. The build (scripts/build.sh, from scripts/modules.txt) names
// each one in <meta name="satori-module:NAME" content="./DIR-<hash>/BIN.js">; it is imported from
// the app's own origin the first time it is needed, after the stylesheet of the UI it draws
// (<meta name="satori-style:NAME">), if any, has loaded. A failed load can be tried again.
// Shared by every copy of this file (each wasm module that loads others has its own), so a module
// is loaded once per page: the dialogs module renders markdown with the app's renderer.
const shared = (globalThis.__satoriModules ??= { ready: new Map(), pending: new Map() });
const ready = shared.ready; // name -> initialised module
// For plain JavaScript of the page (src/web/offline.js starts the sync module this way).
shared.load = loadModule;
const pending = shared.pending; // name -> Promise

export function loadModule(name) {
  if (ready.has(name)) return Promise.resolve();
  let p = pending.get(name);
  if (!p) {
    p = (async () => {
      const meta = document.querySelector(`meta[name="satori-module:${name}"]`);
      if (!meta) throw new Error(`the page does not name the ${name} module`);
      const url = new URL(meta.getAttribute('content'), document.baseURI);
      const style = document.querySelector(`meta[name="satori-style:${name}"]`);
      if (style) await linkStyle(new URL(style.getAttribute('content'), document.baseURI).href);
      const m = await import(url.href);
      await m.default();
      ready.set(name, m);
    })();
    pending.set(name, p);
    p.finally(() => pending.delete(name)).catch(() => {});
  }
  return p;
}

// Adds <link rel="stylesheet" href> once; resolves when it has loaded (a failed one is removed, so
// the next try adds it again).
function linkStyle(href) {
  const old = [...document.querySelectorAll('link[rel="stylesheet"]')].find((l) => l.href === href);
  if (old && old.dataset.loaded) return Promise.resolve();
  if (old) old.remove();
  return new Promise((resolve, reject) => {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = href;
    link.onload = () => {
      link.dataset.loaded = 'true';
      resolve();
    };
    link.onerror = () => {
      link.remove();
      reject(new Error(`the stylesheet ${href} did not load`));
    };
    document.head.append(link);
  });
}

// The in-browser model answers the requests made to its address (src/web/llm-local.js, named in
// <meta name="satori-module:local">), imported when first asked.
export function localFetch(request) {
  shared.local ??= (async () => {
    const meta = document.querySelector('meta[name="satori-module:local"]');
    if (!meta) throw new Error('this copy of Satori was built without the in-browser model');
    return import(new URL(meta.getAttribute('content'), document.baseURI).href);
  })();
  shared.local.catch(() => { shared.local = null; });
  const answer = shared.local.then((m) => m.fetchLocal(request));
  // Nobody awaits the warm-up: its failure is nobody's to report.
  if (request.url.endsWith('/warm')) answer.catch(() => {});
  return answer;
}

// The model file of the in-browser model (llm-local.js `modelFile`): 'which', 'pick' or 'forget'.
export function localModel(action, file) {
  const m = document.querySelector('meta[name="satori-module:local"]');
  if (!m) return Promise.reject(new Error('this copy of Satori was built without the in-browser model'));
  return import(new URL(m.getAttribute('content'), document.baseURI).href).then((l) => l.modelFile(action, file));
}

export function isLoaded(name) {
  return ready.has(name);
}

export function callModule(name, fn, args) {
  const m = ready.get(name);
  if (!m) throw new Error(`the ${name} module is not loaded`);
  if (typeof m[fn] !== 'function') throw new Error(`the ${name} module has no function ${fn}`);
  return m[fn](...args);
}

// Load `name` if needed and call its async `fn` (none: only load it); the promise rejects when
// `signal` aborts (an AbortError) or after `ms` milliseconds, whatever the module does.
export function callModuleWithin(name, fn, args, signal, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not answer within ${ms / 1000} s`)), ms);
    const stop = () => reject(new DOMException('stopped', 'AbortError'));
    signal.addEventListener('abort', stop, { once: true });
    loadModule(name)
      .catch((e) => {
        const err = new Error(e && e.message ? e.message : String(e));
        err.name = 'ModuleLoadError';
        throw err;
      })
      .then(() => fn && callModule(name, fn, args))
      .then(resolve, reject)
      .finally(() => {
        clearTimeout(timer);
        signal.removeEventListener('abort', stop);
      });
  });
}
