// The in-browser model's worker (built into dist/llm-<hash>/worker.js next to the satori-llm
// module; started by llm-local.js). It keeps the model file's pieces in the Cache API, loads the
// model into wasm memory piece by piece, and answers one request at a time, a step per turn of
// its event loop so a "stop" message is seen between any two tokens. The page never runs any of
// this: it only posts requests and gets texts back.
//
// Page → worker: {type: 'init', manifest} · {type: 'check', id, body} · {type: 'count', id, texts}
//   · {type: 'chat', id, body, seed} · {type: 'stop', id}
// Worker → page: {type: 'progress', id, loaded, total, fetched, missing} · {type: 'stored', id, ok}
//   · {type: 'checked', id, tokens} · {type: 'counted', id, counts} · {type: 'reading', id, read, of}
//   · {type: 'text', id, text} · {type: 'done', id, finish, prompt, completion, reused}
//   · {type: 'error', id, status, message, fatal} (fatal: start a new worker)
import init, { Chat, Counter, Loader } from './satori-llm.js';

const WINDOW = 2048;
const CACHE = 'satori-model';
// The smallest module with a SIMD instruction (i8x16.splat): browsers without WebAssembly SIMD
// refuse it.
const SIMD_TEST = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

let manifestUrl = null;
let manifest = null; // {name, bytes, pieces: [{file, bytes, integrity}]}
let wasm = null; // Promise of the initialised module
let counter = null; // Promise<Counter>
let chat = null; // Promise<Chat>
const stopped = new Set();
let queue = Promise.resolve();

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
    const r = await fetch(manifestUrl).catch(() => null);
    if (!r || !r.ok) throw new Failure(503, 'The in-browser model\'s file list could not be loaded. Check the connection and send again.');
    manifest = await r.json();
  }
  return manifest;
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
  try {
    response = await fetch(url, { integrity: p.integrity, cache: 'no-store' });
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

function getCounter() {
  if (!counter) {
    counter = (async () => {
      await module();
      const [head] = await piece(0, () => {});
      return new Counter(head);
    })();
    counter.catch(() => { counter = null; });
  }
  return counter;
}

function getChat(id) {
  if (!chat) {
    chat = (async () => {
      await module();
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
      let allStored = true;
      const loader = new Loader(m.bytes);
      const tell = () => self.postMessage({ type: 'progress', id, loaded, total: m.bytes, fetched, missing });
      for (let i = 0; i < m.pieces.length; i++) {
        const [bytes, stored] = await piece(i, (n) => {
          fetched += n;
          tell();
        });
        allStored &&= stored;
        loader.push(bytes);
        loaded += bytes.length;
        tell();
      }
      self.postMessage({ type: 'stored', id, ok: allStored, fetched });
      forgetOthers(m);
      return new Chat(loader, WINDOW);
    })();
    chat.catch(() => { chat = null; });
  }
  return chat;
}

// Drops pieces of other versions of the model from the cache.
async function forgetOthers(m) {
  const cache = await store();
  if (!cache) return;
  const keep = new Set(m.pieces.map((p) => new URL(p.file, manifestUrl).href));
  for (const request of await cache.keys()) {
    if (!keep.has(request.url)) await cache.delete(request);
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
  const status = e instanceof Failure ? e.status : 500;
  const message = e instanceof Failure ? e.message : `The in-browser model failed: ${e && e.message ? e.message : e}`;
  self.postMessage({ type: 'error', id, status, message, fatal: Boolean(e && e.fatal) });
}

// An error text of the module: "400 why" is the request's fault.
function moduleFailure(e) {
  const text = String(e && e.message ? e.message : e);
  const m = text.match(/^(\d{3}) ([\s\S]*)$/);
  return m ? new Failure(Number(m[1]), m[2]) : new Failure(500, `The in-browser model failed: ${text}`);
}

async function answer(id, body, seed) {
  const c = await getChat(id);
  if (stopped.has(id)) return;
  let started;
  try {
    started = c.start(body, seed).split(' ').map(Number);
  } catch (e) {
    throw moduleFailure(e);
  }
  const [prompt, reused] = started;
  let completion = 0;
  for (;;) {
    await tick();
    if (stopped.has(id)) {
      c.stop();
      return;
    }
    let step;
    try {
      step = c.step();
    } catch (e) {
      // A trap leaves the module unusable: the page starts a new worker.
      const f = moduleFailure(e);
      f.fatal = true;
      throw f;
    }
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
    return;
  }
  if (msg.type === 'stop') {
    stopped.add(msg.id);
    return;
  }
  const run = async () => {
    try {
      if (msg.type === 'check') {
        const c = await getCounter();
        let tokens;
        try {
          tokens = c.check(msg.body, WINDOW);
        } catch (e) {
          throw moduleFailure(e);
        }
        self.postMessage({ type: 'checked', id: msg.id, tokens });
      } else if (msg.type === 'count') {
        const c = await getCounter();
        self.postMessage({ type: 'counted', id: msg.id, counts: msg.texts.map((t) => c.count(t)) });
      } else if (msg.type === 'chat') {
        if (!stopped.has(msg.id)) await answer(msg.id, msg.body, msg.seed);
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
