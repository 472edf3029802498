// The in-browser model as a server inside the page: the app sends its requests for the provider
// "In this browser" (base URL http://in-browser.invalid/v1, an address that never resolves) to
// fetchLocal instead of the network (src/adapters/fetch.rs), and gets the answers an
// OpenAI-compatible llama.cpp server gives: GET /v1/models, GET /props (the 2 048-token window),
// POST /tokenize (the model's own token counts, for the context pipeline) and POST
// /v1/chat/completions (streamed as server-sent events, or whole). So streaming, Stop,
// regenerate, the context pipeline and sessions work as with any server. The work happens in a
// worker (llm-worker.js); a request aborted by the app stops its answer within a token.
//
// While the model's file downloads (once: the worker keeps it in the Cache API), a bar shows the
// bytes and the time left; the stream meanwhile carries comments, so the app's stall timer keeps
// waiting. Nothing here sends anything anywhere: the API key is never read.

const MODEL = 'smollm2-135m';
const WINDOW = 2048;
let worker = null;
let nextId = 1;
const jobs = new Map(); // id -> handler of the worker's messages for it
const streams = new Set(); // send(comment) of every open stream: the model's loading is theirs
let persisted = false;
let alive = 0; // when the worker last said it is running (performance.now())
let memoryFile = null; // a model file picked this visit that the browser would not keep
let changing = Promise.resolve(); // the model-file change under way

function getWorker() {
  if (worker) return worker;
  const meta = document.querySelector('meta[name="satori-table:llm-model"]');
  const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  w.onmessage = (event) => {
    const m = event.data;
    alive = performance.now();
    if (m.id !== undefined) return jobs.get(m.id)?.(m);
    // The model's loading, whichever request started it.
    if (m.type === 'progress') {
      progress.show(m);
      for (const send of streams) {
        try {
          send(`: loading the model ${m.loaded}/${m.total}\n\n`);
        } catch {
          streams.delete(send); // a stream the app stopped reading
        }
      }
    } else if (m.type === 'stored') {
      progress.done(m);
    } else if (m.type === 'unloaded') {
      progress.failed();
      if (m.fatal) restart('The in-browser model could not be loaded.');
    }
  };
  w.onerror = (event) => {
    event.preventDefault();
    restart(`The in-browser model stopped: ${event.message || 'its worker could not start'}.`);
  };
  w.postMessage({
    type: 'init',
    manifest: meta ? new URL(meta.getAttribute('content'), document.baseURI).href : null,
    base: document.baseURI,
    file: memoryFile,
  });
  worker = w;
  alive = performance.now();
  return w;
}

// Ends the worker (its memory goes with it) and fails what it was doing; the next request
// starts a new one.
function restart(message) {
  const w = worker;
  worker = null;
  w?.terminate();
  progress.failed();
  for (const [id, handler] of [...jobs]) handler({ type: 'error', id, status: 500, message });
}

function post(msg, handler) {
  const w = getWorker();
  const id = nextId++;
  jobs.set(id, handler);
  w.postMessage({ ...msg, id });
  return id;
}

const aborted = () => new DOMException('The request was stopped.', 'AbortError');

class Failure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// One question to the worker, answered by one message (not progress).
function ask(msg, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(aborted());
    const id = post(msg, (m) => {
      jobs.delete(id);
      if (m.type === 'error') reject(new Failure(m.status, m.message));
      else resolve(m);
      if (m.fatal) restart(m.message);
    });
    signal.addEventListener('abort', () => {
      jobs.delete(id);
      reject(aborted());
    }, { once: true });
  });
}

const json = (status, value) => new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
const failed = (status, message) => json(status, { error: { message, type: status === 400 ? 'invalid_request_error' : 'server_error', code: status } });

/**
 * The model file picked from disk (Settings → "Model file"): `action` 'which' tells the one in
 * use, 'pick' checks and keeps `file` in place of the built-in model, 'forget' goes back to the
 * built-in model. Resolves to the file's description as JSON ({name, bytes, kept, layers, width,
 * vocab, context}) or null for the built-in model; rejects with the reason a file cannot be used.
 * A change starts a new worker: the model in memory is dropped, answers under way end.
 */
export function modelFile(action, file) {
  // One change at a time: a second pick waits for the first to be kept (or refused).
  const run = changing.then(async () => {
    const never = new AbortController().signal;
    let r;
    try {
      r = await ask({ type: action, file }, never);
    } catch (e) {
      // A refused file may have left a large header read in this worker's memory: a new worker
      // frees it, unless an answer is under way (it is not ended for a file that was refused).
      if (action === 'pick' && jobs.size === 0) restart('The in-browser model was restarted.');
      throw e;
    }
    if (action !== 'which') {
      memoryFile = action === 'pick' && !r.info.kept ? file : null;
      restart('The model was changed in Settings. Send again to use it.');
    }
    return r.info ? JSON.stringify(r.info) : null;
  });
  changing = run.catch(() => {});
  return run;
}

/** Answers `request` (a Request the app made for the in-browser model). */
export async function fetchLocal(request) {
  if (request.signal.aborted) throw aborted();
  const path = new URL(request.url).pathname.replace(/\/+$/, '');
  const method = request.method;
  try {
    if (method === 'GET' && path.endsWith('/models')) {
      return json(200, { object: 'list', data: [{ id: MODEL, object: 'model', owned_by: 'satori' }] });
    }
    if (method === 'GET' && path.endsWith('/warm')) {
      // The user is typing: read the model into memory now if it is stored (never a download),
      // so the answer does not wait for it. Once per worker: a new one (after a failure or a
      // change of model file) is warmed on the next keystroke.
      const w = getWorker();
      if (!w.warmed) w.postMessage({ type: 'warm' });
      w.warmed = true;
      return new Response(null, { status: 204 });
    }
    if (method === 'GET' && path.endsWith('/props')) {
      return json(200, { default_generation_settings: { n_ctx: WINDOW }, n_ctx: WINDOW, model_alias: MODEL });
    }
    if (method === 'POST' && path.endsWith('/tokenize')) {
      const body = await request.json().catch(() => ({}));
      const r = await ask({ type: 'count', texts: [String(body.content ?? '')] }, request.signal);
      return json(200, { count: r.counts[0] });
    }
    if (method === 'POST' && path.endsWith('/chat/completions')) return await complete(request);
  } catch (e) {
    if (e instanceof Failure) return failed(e.status, e.message);
    throw e;
  }
  return failed(404, `The in-browser model has no ${method} ${path}.`);
}

async function complete(request) {
  const body = await request.text();
  let stream = false;
  try {
    stream = JSON.parse(body).stream === true;
  } catch {
    return failed(400, 'The request is not JSON.');
  }
  // The prompt is checked with the tokenizer alone (the file's first 1.8 MB): one the window
  // cannot hold is refused at once, as a server refuses it.
  await ask({ type: 'check', body }, request.signal);
  if (!persisted && navigator.storage?.persist) {
    persisted = true;
    navigator.storage.persist().catch(() => {});
  }
  const created = Math.floor(Date.now() / 1000);
  const seed = Math.floor(Math.random() * 2 ** 32);
  const name = `chatcmpl-local-${created}-${nextId}`;
  if (!stream) return whole(request, body, seed, name, created);
  const enc = new TextEncoder();
  const chunk = (delta, finish, usage) => JSON.stringify({
    id: name, object: 'chat.completion.chunk', created, model: MODEL,
    choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}),
  });
  let id = 0;
  let open = true;
  let send = () => {};
  let keepalive = 0;
  const end = () => {
    open = false;
    jobs.delete(id);
    streams.delete(send);
    clearInterval(keepalive);
  };
  return new Response(new ReadableStream({
    start(controller) {
      send = (text) => open && controller.enqueue(enc.encode(text));
      send(`data: ${chunk({ role: 'assistant', content: '' }, null)}\n\n`);
      const handle = (m) => {
        if (!open) return;
        if (m.type === 'reading') {
          send(`: reading ${m.read}/${m.of}\n\n`);
        } else if (m.type === 'text') {
          send(`data: ${chunk({ content: m.text }, null)}\n\n`);
        } else if (m.type === 'done') {
          const usage = { prompt_tokens: m.prompt, completion_tokens: m.completion, total_tokens: m.prompt + m.completion };
          send(`data: ${chunk({}, m.finish, usage)}\n\ndata: [DONE]\n\n`);
          end();
          controller.close();
        } else if (m.type === 'error') {
          send(`data: ${JSON.stringify({ error: { message: m.message, code: m.status } })}\n\n`);
          end();
          controller.close();
          if (m.fatal) restart(m.message);
        }
      };
      try {
        id = post({ type: 'chat', body, seed }, handle);
      } catch (e) {
        end();
        throw e;
      }
      streams.add(send);
      // While it waits (for the model, or behind another answer), the stream says so now and
      // then, as long as the worker is alive: the app's stall timer is for a model gone silent.
      keepalive = setInterval(() => {
        if (performance.now() - alive < 12_000) send(': waiting\n\n');
      }, 4_000);
      request.signal.addEventListener('abort', () => {
        if (!open) return;
        worker?.postMessage({ type: 'stop', id });
        end();
        controller.error(aborted());
      }, { once: true });
    },
    cancel() {
      if (!open) return;
      worker?.postMessage({ type: 'stop', id });
      end();
    },
  }), { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

// A request with "stream": false: the whole answer at once.
function whole(request, body, seed, name, created) {
  return new Promise((resolve, reject) => {
    let text = '';
    let over = false;
    const id = post({ type: 'chat', body, seed }, (m) => {
      if (m.type === 'text') text += m.text;
      else if (m.type === 'error') {
        over = true;
        jobs.delete(id);
        resolve(failed(m.status, m.message));
        if (m.fatal) restart(m.message);
      } else if (m.type === 'done') {
        over = true;
        jobs.delete(id);
        resolve(json(200, {
          id: name, object: 'chat.completion', created, model: MODEL,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: m.finish }],
          usage: { prompt_tokens: m.prompt, completion_tokens: m.completion, total_tokens: m.prompt + m.completion },
        }));
      }
    });
    request.signal.addEventListener('abort', () => {
      if (over) return;
      worker?.postMessage({ type: 'stop', id });
      jobs.delete(id);
      reject(aborted());
    }, { once: true });
  });
}

// The bar shown while the model's file downloads or loads: bytes and time left, then a note if
// the browser would not keep it.
const progress = (() => {
  let box = null;
  let bar = null;
  let line = null;
  let since = 0;
  let timer = 0;
  const mb = (n) => (n / 1e6).toFixed(1);
  const make = (label) => {
    clearTimeout(timer);
    if (box) return;
    box = document.createElement('div');
    box.className = 'llm-progress';
    box.setAttribute('role', 'status');
    // Above the composer, over the conversation's end rather than the header's buttons.
    box.style.cssText = 'position:fixed;z-index:60;bottom:112px;left:50%;transform:translateX(-50%);width:min(360px,calc(100vw - 24px));'
      + 'box-sizing:border-box;padding:10px 14px;border:1px solid var(--border);border-radius:var(--radius);'
      + 'background:var(--bg);color:var(--fg);box-shadow:0 4px 16px rgba(0,0,0,.18);font:14px/1.4 var(--font)';
    const title = document.createElement('div');
    title.textContent = label;
    bar = document.createElement('progress');
    bar.setAttribute('aria-label', label);
    bar.style.cssText = 'display:block;width:100%;margin:6px 0 4px;accent-color:var(--accent)';
    line = document.createElement('div');
    line.style.cssText = 'color:var(--fg-soft);font-size:13px';
    box.append(title, bar, line);
    document.body.append(box);
  };
  const remove = () => {
    box?.remove();
    box = null;
  };
  return {
    show(m) {
      if (!box) since = performance.now();
      make(m.missing > 0 ? 'Downloading the in-browser model' : 'Loading the in-browser model');
      bar.max = m.total;
      bar.value = m.loaded;
      // Time left: the bytes still to download at the rate they have come so far.
      const seconds = (performance.now() - since) / 1000;
      const rate = m.fetched / Math.max(seconds, 0.001);
      const left = m.fetched > 0 && seconds > 0.5 ? Math.ceil((m.missing - m.fetched) / rate) : null;
      line.textContent = left === null
        ? `${mb(m.loaded)} of ${mb(m.total)} MB`
        : `${mb(m.loaded)} of ${mb(m.total)} MB, about ${left} s left`;
    },
    done(m) {
      if (m.ok || !box) return remove();
      line.textContent = m.why === 'insecure'
        ? 'The browser keeps files only for secure pages (https): the model will be downloaded again next time.'
        : 'The browser did not keep the model (not enough storage): it will be downloaded again next time.';
      timer = setTimeout(remove, 10_000);
    },
    failed() {
      remove();
    },
  };
})();
