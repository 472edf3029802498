// Loads Satori's lazy wasm modules. The build (scripts/build.sh, from scripts/modules.txt) names
// each one in <meta name="satori-module:NAME" content="./DIR-<hash>/BIN.js">; it is imported from
// the app's own origin the first time it is needed. A failed load can be tried again.
const ready = new Map(); // name -> initialised module
const pending = new Map(); // name -> Promise

export function loadModule(name) {
  if (ready.has(name)) return Promise.resolve();
  let p = pending.get(name);
  if (!p) {
    p = (async () => {
      const meta = document.querySelector(`meta[name="satori-module:${name}"]`);
      if (!meta) throw new Error(`the page does not name the ${name} module`);
      const url = new URL(meta.getAttribute('content'), document.baseURI);
      const m = await import(url.href);
      await m.default();
      ready.set(name, m);
    })();
    pending.set(name, p);
    p.finally(() => pending.delete(name)).catch(() => {});
  }
  return p;
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
