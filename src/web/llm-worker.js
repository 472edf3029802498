// The in-browser model's worker (built into dist/llm-<hash>/worker.js next to the satori-llm
// module; started by llm-local.js). It keeps the model file's pieces in the Cache API, loads the
// model into wasm memory piece by piece, and answers one request at a time, a step per turn of
// its event loop so a "stop" message is seen between any two tokens. The page never runs any of
// this: it only posts requests and gets texts back.
//
// A model file the user picked from disk (Settings → "Model file") takes the built-in model's
// place: it is checked from its header, kept in the Cache API under this copy's address, and read
// from there on every later visit until the user goes back to the built-in model.
//
// Page → worker: {type: 'init', manifest, base, file} · {type: 'warm'} · {type: 'check', id, body}
//   · {type: 'count', id, texts} · {type: 'pick', id, file} · {type: 'forget', id} · {type: 'which', id}
//   · {type: 'chat', id, body, seed} · {type: 'stop', id}
// Worker → page: {type: 'progress', loaded, total, fetched, missing} · {type: 'stored', ok, why}
//   · {type: 'unloaded', fatal} (the loading failed) · {type: 'alive'} (every 5 s) — these for
//   every request, with no id
//   · {type: 'checked', id, tokens} · {type: 'counted', id, counts} · {type: 'reading', id, read, of}
//   · {type: 'file', id, info} (the picked file in use: {name, bytes, kept, layers, …}, or null)
//   · {type: 'text', id, text} · {type: 'done', id, finish, prompt, completion, reused}
//   · {type: 'error', id, status, message, fatal} (fatal: start a new worker)
import init, { Chat, Counter, Loader, check_file } from './satori-llm.js';

const WINDOW = 2048;
const CACHE = 'satori-model';
const PICKED = 'satori-model-file'; // the cache of a file picked from disk
const SLICE = 16 << 20; // bytes read from a picked file at a time
const MAX_FILE = 2 ** 31; // the largest picked file: it and the model's state share 4 GB
// The smallest module with a SIMD instruction (i8x16.splat): browsers without WebAssembly SIMD
// refuse it.
const SIMD_TEST = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

let manifestUrl = null;
let manifest = null; // {name, bytes, pieces: [{file, bytes, integrity}]}
let appBase = null; // the app's address: the picked file is kept under it
// The picked file: a Promise, made when first asked, of null for none, else {info, head, blob}
// (blob: the kept copy, or the File itself when the browser would not keep it).
let picked;
let memoryFile = null; // a picked file the browser did not keep, handed over by the page
let wasm = null; // Promise of the initialised module
let counter = null; // Promise<Counter>
let chat = null; // Promise<Chat>
const stopped = new Set();
let queue = Promise.resolve();
// The page forwards its keep-alive comments only while these arrive: a worker that died or hangs
// lets the app's stall timer end the answer.
setInterval(() => self.postMessage({ type: 'alive' }), 5_000);

class Failure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function module() {
  if (!wasm) {
    wasm = (async () => {
      if (!WebAssembly.validate(SIMD_TEST)) {
        throw new Failure(501, 'This browser cannot run the in-browser model: it lacks WebAssembly SIMD (Chrome 91, Firefox 89 and Safari 16.4 have it). Choose a server in Settings.');
      }
      await init();
    })();
    wasm.catch(() => { wasm = null; });
  }
  return wasm;
}

async function getManifest() {
  if (!manifest) {
    if (!manifestUrl) throw new Failure(501, 'This copy of Satori was built without the in-browser model.');
    // The list is kept with the pieces, so a cached model also loads offline.
    const cache = await store();
    let r = await fetch(manifestUrl).catch(() => null);
    const absent = r?.status === 404; // a host that leaves model/ out
    if (r && r.ok) {
      await cache?.put(manifestUrl, r.clone()).catch(() => {});
    } else {
      r = cache && (await cache.match(manifestUrl).catch(() => null));
    }
    if ((!r || !r.ok) && absent) throw new Failure(501, 'This copy of Satori is served without the in-browser model.');
    if (!r || !r.ok) throw new Failure(503, 'The in-browser model\'s file list could not be loaded. Check the connection and send again.');
    manifest = await r.json();
  }
  return manifest;
}

// Calls into the module: an `Err` of Rust comes as its text ("400 why" is the request's fault);
// anything else (a trap: out of memory, a bug) leaves the module unusable, and the page starts a
// new worker.
function call(f) {
  try {
    return f();
  } catch (e) {
    if (typeof e === 'string') throw moduleFailure(e);
    const failure = new Failure(500, `The in-browser model failed: ${e && e.message ? e.message : e}`);
    failure.fatal = true;
    throw failure;
  }
}

// The SHA-256 of `bytes` as an SRI value, or null where the browser offers no digest (a page
// that is not a secure context).
async function sri(bytes) {
  if (!crypto.subtle) return null;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  let text = '';
  for (const b of digest) text += String.fromCharCode(b);
  return `sha256-${btoa(text)}`;
}

const store = () => (typeof caches === 'undefined' ? Promise.resolve(null) : caches.open(CACHE).catch(() => null));

/**
 * The bytes of piece `i`: from the cache, else downloaded (checked against its hash) and stored.
 * `progress(n)` is told of every downloaded chunk. Resolves to [bytes, stored?].
 */
async function piece(i, progress) {
  const m = await getManifest();
  const p = m.pieces[i];
  const url = new URL(p.file, manifestUrl).href;
  const cache = await store();
  const kept = cache && (await cache.match(url).catch(() => null));
  if (kept) {
    const bytes = new Uint8Array(await kept.arrayBuffer());
    if (bytes.length === p.bytes) return [bytes, true];
  }
  let response;
  // The hash is checked once the piece is in (a fetch with `integrity` would hold every byte back
  // until then, and the bar with it); only without a digest does the browser check it.
  const check = Boolean(crypto.subtle);
  try {
    response = await fetch(url, check ? { cache: 'no-store' } : { integrity: p.integrity, cache: 'no-store' });
  } catch (e) {
    throw new Failure(503, 'The in-browser model could not be downloaded: the connection failed. Send again to resume.');
  }
  if (!response.ok) throw new Failure(503, `The in-browser model could not be downloaded (HTTP ${response.status}). Send again to resume.`);
  const bytes = new Uint8Array(p.bytes);
  let at = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (at + value.length > bytes.length) throw new Error('too long');
      bytes.set(value, at);
      at += value.length;
      progress(value.length);
    }
  } catch (e) {
    throw new Failure(503, 'The in-browser model\'s download was interrupted. What arrived is kept: send again to resume.');
  }
  if (at !== p.bytes) throw new Failure(503, 'The in-browser model\'s download was interrupted. What arrived is kept: send again to resume.');
  if (check && (await sri(bytes)) !== p.integrity) {
    throw new Failure(502, 'A piece of the in-browser model arrived damaged (its hash is wrong). Send again to download it again.');
  }
  let stored = false;
  if (cache) {
    try {
      await cache.put(url, new Response(bytes));
      stored = true;
    } catch (e) {
      stored = false; // QuotaExceededError: the model still runs, from memory
    }
  }
  return [bytes, stored];
}

const pickedKey = () => new URL('satori-model-file.gguf', appBase ?? self.location.href).href;
const pickedStore = () => (typeof caches === 'undefined' ? Promise.resolve(null) : caches.open(PICKED).catch(() => null));
// That cache if a file was ever kept there (looked up without creating it), else null.
const keptStore = async () => (typeof caches !== 'undefined' && (await caches.has(PICKED).catch(() => false)) ? pickedStore() : null);

// The file picked from disk, if any: the one kept in the cache, else the one the page holds.
async function getPicked() {
  // One lookup per worker, shared by the warm-up, counting and answers that ask at once.
  if (picked) return picked;
  const p = (async () => {
    const cache = await keptStore();
    const r = cache && (await cache.match(pickedKey()).catch(() => null));
    if (r) {
      const info = JSON.parse(decodeURIComponent(r.headers.get('x-satori-model') ?? '%7B%7D'));
      return { info: { ...info, kept: true }, head: info.head, blob: await r.blob() };
    }
    return memoryFile ? checked(memoryFile, false) : null;
  })();
  picked = p;
  // A lookup that failed is tried again by the next ask.
  p.catch(() => { if (picked === p) picked = undefined; });
  return p;
}

// Checks `file` from its header (read in growing slices): {info, head, blob}, or a Failure that
// says why the engine cannot run it.
async function checked(file, kept) {
  // The file and the model's working memory must fit in 4 GB of wasm memory.
  if (file.size > MAX_FILE) {
    throw new Failure(400, `“${file.name}” cannot run in the browser: it is ${Math.ceil(file.size / 1e6)} MB, and at most ${Math.floor(MAX_FILE / 1e6)} MB fit in its memory.`);
  }
  await module();
  for (let n = 4 << 20; ; n *= 4) {
    const head = await read(file, 0, Math.min(n, file.size));
    let shape;
    try {
      shape = check_file(head, file.size);
    } catch (e) {
      if (typeof e !== 'string') throw e;
      throw new Failure(400, `“${file.name}” cannot run in the browser: ${e}. Satori runs GGUF files of the SmolLM2 family (llama, ChatML) in Q4_K_M, Q5_K_M, Q6_K, Q8_0, Q4_0, Q4_1, Q5_0 or Q5_1.`);
    }
    if (shape) {
      const info = { name: file.name, bytes: file.size, kept, head: head.length, ...JSON.parse(shape) };
      return { info, head: head.length, blob: file };
    }
    if (head.length >= file.size || n >= 64 << 20) {
      throw new Failure(400, `“${file.name}” cannot run in the browser: its header is larger than 64 MB.`);
    }
  }
}

// Bytes `from`..`to` of a picked file (a File on disk may have changed or gone since).
async function read(blob, from, to) {
  try {
    return new Uint8Array(await blob.slice(from, to).arrayBuffer());
  } catch (e) {
    throw new Failure(500, 'The model file could not be read (it may have been moved or changed). Pick it again in Settings.');
  }
}

// The user picked `file`: checked, then kept in the cache (where the browser allows) in place of
// any earlier pick.
async function pick(file) {
  const p = await checked(file, false);
  const cache = await pickedStore();
  if (cache) {
    try {
      const info = { ...p.info, kept: true };
      const headers = { 'content-type': 'application/octet-stream', 'x-satori-model': encodeURIComponent(JSON.stringify(info)) };
      await cache.put(pickedKey(), new Response(file, { headers }));
      return info;
    } catch (e) {
      await cache.delete(pickedKey()).catch(() => {});
    }
  }
  return p.info; // not kept: the page hands the file to each new worker
}

async function forget() {
  const cache = await keptStore();
  if (cache) await cache.delete(pickedKey());
}

function getCounter() {
  if (!counter) {
    counter = (async () => {
      await module();
      const p = await getPicked();
      const [head] = p ? [await read(p.blob, 0, p.head)] : await piece(0, () => {});
      return call(() => new Counter(head));
    })();
    counter.catch(() => { counter = null; });
  }
  return counter;
}

function getChat() {
  if (!chat) {
    chat = (async () => {
      await module();
      const p = await getPicked();
      if (p) return loadPicked(p);
      const m = await getManifest();
      // What must be downloaded (the rest is in the cache): the bar says "downloading" only then.
      const cache = await store();
      let missing = 0;
      for (const p of m.pieces) {
        const kept = cache && (await cache.match(new URL(p.file, manifestUrl).href).catch(() => null));
        if (!kept) missing += p.bytes;
      }
      let loaded = 0;
      let fetched = 0;
      let allStored = Boolean(cache);
      const loader = call(() => new Loader(m.bytes));
      const tell = () => self.postMessage({ type: 'progress', loaded, total: m.bytes, fetched, missing });
      try {
        for (let i = 0; i < m.pieces.length; i++) {
          const [bytes, stored] = await piece(i, (n) => {
            fetched += n;
            tell();
          });
          allStored &&= stored;
          call(() => loader.push(bytes));
          loaded += bytes.length;
          tell();
        }
      } catch (e) {
        loader.free(); // its memory goes back for the next try
        throw e;
      }
      self.postMessage({ type: 'stored', ok: allStored, why: cache ? 'quota' : 'insecure', fetched });
      forgetOthers(m);
      return call(() => new Chat(loader, WINDOW));
    })();
    chat.catch(() => {
      chat = null;
      self.postMessage({ type: 'unloaded' });
    });
  }
  return chat;
}

// Loads the picked file into the engine, a slice at a time, with the same progress as a download
// (nothing is fetched).
async function loadPicked(p) {
  const total = p.blob.size;
  const loader = call(() => new Loader(total));
  try {
    for (let at = 0; at < total; at += SLICE) {
      const bytes = await read(p.blob, at, Math.min(at + SLICE, total));
      call(() => loader.push(bytes));
      self.postMessage({ type: 'progress', loaded: at + bytes.length, total, fetched: 0, missing: 0 });
    }
  } catch (e) {
    loader.free();
    throw e;
  }
  self.postMessage({ type: 'stored', ok: true, fetched: 0 });
  return call(() => new Chat(loader, WINDOW));
}

// Reads the model into memory ahead of the first request, if every piece is stored (a download
// waits for a request: it is the user's choice).
async function warm() {
  if (chat) return;
  await module();
  if (await getPicked()) {
    await getChat();
    return;
  }
  const m = await getManifest();
  const cache = await store();
  if (!cache) return;
  for (const p of m.pieces) {
    const kept = await cache.match(new URL(p.file, manifestUrl).href);
    if (!kept || Number(kept.headers.get('content-length') ?? p.bytes) !== p.bytes) return;
  }
  await getChat();
}

// Drops pieces of other versions of the model from the cache: those of this copy of Satori only
// (another copy on the same origin keeps its own).
async function forgetOthers(m) {
  const cache = await store();
  if (!cache) return;
  const folder = new URL('.', manifestUrl).href;
  const keep = new Set([manifestUrl, ...m.pieces.map((p) => new URL(p.file, manifestUrl).href)]);
  for (const request of await cache.keys()) {
    if (request.url.startsWith(folder) && !keep.has(request.url)) await cache.delete(request);
  }
}

// Lets the event loop run (a "stop" message arrives) without the 4 ms of a nested setTimeout.
function tick() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(0);
  });
}

function failure(id, e) {
  const ours = e instanceof Failure;
  const status = ours ? e.status : 500;
  const message = ours ? e.message : `The in-browser model failed: ${e && e.message ? e.message : e}`;
  // Anything unforeseen: a new worker is the safe way on.
  self.postMessage({ type: 'error', id, status, message, fatal: !ours || Boolean(e.fatal) });
}

// An error text of the module: "400 why" is the request's fault.
function moduleFailure(e) {
  const text = String(e && e.message ? e.message : e);
  const m = text.match(/^(\d{3}) ([\s\S]*)$/);
  return m ? new Failure(Number(m[1]), m[2]) : new Failure(500, `The in-browser model failed: ${text}`);
}

async function answer(id, body, seed) {
  const c = await getChat();
  if (stopped.has(id)) return;
  const started = call(() => c.start(body, seed)).split(' ').map(Number);
  const [prompt, reused] = started;
  let completion = 0;
  for (;;) {
    await tick();
    if (stopped.has(id)) {
      c.stop();
      return;
    }
    const step = call(() => c.step());
    const kind = step[0];
    if (kind === 'r') {
      const [read, of] = step.slice(1).split('/').map(Number);
      self.postMessage({ type: 'reading', id, read, of });
    } else if (kind === 't') {
      completion++;
      if (step.length > 1) self.postMessage({ type: 'text', id, text: step.slice(1) });
    } else {
      const space = step.indexOf(' ');
      const finish = kind === 'd' ? step.slice(1, space) : 'stop';
      const rest = kind === 'd' ? step.slice(space + 1) : '';
      if (rest) self.postMessage({ type: 'text', id, text: rest });
      self.postMessage({ type: 'done', id, finish, prompt, completion, reused });
      return;
    }
  }
}

self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === 'init') {
    manifestUrl = msg.manifest;
    appBase = msg.base ?? null;
    memoryFile = msg.file ?? null;
    return;
  }
  if (msg.type === 'stop') {
    stopped.add(msg.id);
    return;
  }
  if (msg.type === 'warm') {
    // A failure here is told like any other: a trap means a new worker.
    warm().catch((e) => {
      if (!(e instanceof Failure) || e.fatal) self.postMessage({ type: 'unloaded', fatal: true });
    });
    return;
  }
  const run = async () => {
    try {
      if (msg.type === 'check') {
        const c = await getCounter();
        const tokens = call(() => c.check(msg.body, WINDOW));
        self.postMessage({ type: 'checked', id: msg.id, tokens });
      } else if (msg.type === 'count') {
        const c = await getCounter();
        self.postMessage({ type: 'counted', id: msg.id, counts: call(() => msg.texts.map((t) => c.count(t))) });
      } else if (msg.type === 'chat') {
        if (!stopped.has(msg.id)) await answer(msg.id, msg.body, msg.seed);
      } else if (msg.type === 'pick') {
        // The page starts a new worker after this answer: the model in memory goes with this one.
        self.postMessage({ type: 'file', id: msg.id, info: await pick(msg.file) });
      } else if (msg.type === 'forget') {
        await forget();
        self.postMessage({ type: 'file', id: msg.id, info: null });
      } else if (msg.type === 'which') {
        self.postMessage({ type: 'file', id: msg.id, info: (await getPicked())?.info ?? null });
      }
    } catch (e) {
      failure(msg.id, e);
    } finally {
      stopped.delete(msg.id);
    }
  };
  // Counting never waits for an answer; answers come one at a time.
  if (msg.type === 'chat') queue = queue.then(run);
  else run();
};
