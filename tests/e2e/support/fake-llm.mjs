// In-process, scripted, OpenAI-compatible server for the end-to-end tests.
//
//   const fake = await startFakeLlm();
//   fake.baseUrl            // http://127.0.0.1:PORT/v1
//   fake.enqueue(script)    // next POST /v1/chat/completions follows `script` (FIFO)
//   fake.setDefault(script) // used when the queue is empty (null = built-in echo); a function
//                           // (body) => script (or a promise of one: the answer waits for it)
//                           // picks the script per request
//   fake.setTokenizer(on)   // serve llama-cpp-python's POST /extras/tokenize/count with
//                           // fakeTokens() (off by default: the route is a 404 like elsewhere)
//   fake.setOllama({show, ps}) // act as Ollama: GET /api/version, POST /api/show (show: answers
//                           // by model name; others are "not found") and GET /api/ps (null =
//                           // off, the default: these routes are 404s)
//   fake.requests           // every request: {method, path, url, headers, body, time, aborted, ended}
//   fake.chatRequests()     // only POST .../chat/completions
//   await fake.close()      // never hangs: open sockets are destroyed
//
// Script (all fields optional):
//   status       HTTP status (default 200)
//   headers      extra response headers (e.g. {'Retry-After': '1'}, {'Content-Type': 'text/html'})
//   body         string (sent as-is) or object (sent as JSON); non-streamed, ends the response
//   chunks       content pieces, streamed as OpenAI SSE deltas
//   reasoning    reasoning pieces, streamed before the content as delta[reasoningField]
//   reasoningField  name of the delta field for reasoning (default 'reasoning_content')
//   delayMs      pause before each streamed piece (default 0)
//   raw          raw strings written as-is (hostile / broken wire formats); replaces the SSE framing
//   rawDelayMs   pause before each raw string (default 0)
//   cut          destroy the socket after the pieces: no finish chunk, no [DONE]
//   stall        after the pieces keep the connection open, sending nothing, until the client
//                aborts or close() is called
//   toolCalls    tool calls streamed after the content, as OpenAI `delta.tool_calls`: each
//                {id, name, arguments} (arguments: JSON text); the first fragment of a call carries
//                its id and name, then its arguments go out in pieces of `argPiece` characters
//                (default 4) — split anywhere, as real servers do. finish_reason becomes
//                'tool_calls' unless `finishReason` says otherwise
//   finishReason finish_reason of the final chunk (default 'stop')
//   model        model name echoed in the chunks (default: the request's model)
//   usage        a `usage` object sent in a usage-only chunk after the finish (as OpenAI does with
//                stream_options.include_usage); none by default
//
// Without a script: if the request asks for `stream: true`, the reply `Echo: <last user message>`
// is streamed in word chunks (role delta first, then content, finish_reason 'stop', data: [DONE]);
// otherwise it is returned as one non-streamed chat.completion object.
//
// Each request record has a `closed` promise (non-enumerable) that resolves when the response is
// over: 'finished' (ended normally), 'aborted' (the client closed the connection first) or 'cut'
// (the script destroyed the socket).
import http from 'node:http';

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, content-type',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Expose-Headers': 'Retry-After',
  'Access-Control-Max-Age': '600',
};

export const MODELS = ['fake-small', 'fake-large'];

let idCounter = 0;

/** One SSE event line carrying `data` (an object is JSON-encoded). */
export function sseData(data) {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** A `chat.completion.chunk` object with one choice. */
export function chunkObject(delta, { finishReason = null, model = 'fake-small', id = 'chatcmpl-fake' } = {}) {
  return {
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

/** Raw SSE strings for a content reply: role delta, one event per piece, finish chunk, [DONE]. */
export function sseContent(pieces, { finishReason = 'stop', done = true } = {}) {
  const out = [sseData(chunkObject({ role: 'assistant', content: '' }))];
  for (const p of pieces) out.push(sseData(chunkObject({ content: p })));
  if (finishReason) out.push(sseData(chunkObject({}, { finishReason })));
  if (done) out.push(sseData('[DONE]'));
  return out;
}

/**
 * The fake server's token count of a text (its `/extras/tokenize/count`): one token per run of
 * ASCII letters or digits, per other non-space character. Tests recompute request sizes with it.
 */
export function fakeTokens(text) {
  return (String(text).match(/[A-Za-z0-9]+|[^\sA-Za-z0-9]/gu) ?? []).length;
}

/** Splits text into word chunks that concatenate back to the exact text. */
export function wordChunks(text) {
  return text.match(/\s*\S+\s*/g) ?? [text];
}

function messageText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === 'string' ? part : part && part.type === 'text' ? part.text : ''))
      .join('');
  }
  return '';
}

/** `Echo: <last user message>` for a parsed chat request body. */
export function echoReply(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const lastUser = [...messages].reverse().find((m) => m && m.role === 'user');
  return `Echo: ${lastUser ? messageText(lastUser.content) : ''}`;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeLlm() {
  const queue = [];
  const requests = [];
  const sockets = new Set();
  const timers = new Map(); // timeout -> resolve
  let defaultScript = null;
  let tokenizer = false;
  let ollama = null;
  let closing = false;

  // A sleep that close() can cut short, so no timer keeps the process alive.
  function pause(ms) {
    if (!ms) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.set(t, resolve);
    });
  }

  function writeHead(res, status, headers) {
    res.writeHead(status, { ...CORS_HEADERS, ...headers });
  }

  function sendJson(res, status, obj, headers = {}) {
    const text = JSON.stringify(obj);
    writeHead(res, status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  // Writes `data` unless the response is gone; resolves false when the client has gone away.
  function write(res, data) {
    if (res.destroyed || res.writableEnded || closing) return false;
    res.write(data);
    return true;
  }

  async function serveScript(req, res, record, script) {
    const status = script.status ?? 200;
    const headers = { ...(script.headers ?? {}) };
    const hasHeader = (name) => Object.keys(headers).some((h) => h.toLowerCase() === name.toLowerCase());

    if (script.body !== undefined || (status >= 400 && !script.raw && !script.chunks)) {
      let text;
      if (script.body === undefined) {
        text = JSON.stringify({ error: { message: `fake error ${status}`, type: 'fake_error', code: status } });
        if (!hasHeader('content-type')) headers['Content-Type'] = 'application/json';
      } else if (typeof script.body === 'string') {
        text = script.body;
        if (!hasHeader('content-type')) headers['Content-Type'] = 'text/plain; charset=utf-8';
      } else {
        text = JSON.stringify(script.body);
        if (!hasHeader('content-type')) headers['Content-Type'] = 'application/json';
      }
      headers['Content-Length'] = Buffer.byteLength(text);
      writeHead(res, status, headers);
      res.end(text);
      return;
    }

    if (!hasHeader('content-type')) headers['Content-Type'] = 'text/event-stream; charset=utf-8';
    headers['Cache-Control'] = 'no-cache';
    writeHead(res, status, headers);
    res.flushHeaders();

    let pieces;
    let delay;
    if (script.raw) {
      pieces = script.raw;
      delay = script.rawDelayMs ?? 0;
    } else {
      const model = script.model ?? record.body?.model ?? MODELS[0];
      const id = `chatcmpl-fake-${++idCounter}`;
      const field = script.reasoningField ?? 'reasoning_content';
      pieces = [sseData(chunkObject({ role: 'assistant', content: '' }, { model, id }))];
      for (const r of script.reasoning ?? []) pieces.push(sseData(chunkObject({ [field]: r }, { model, id })));
      for (const c of script.chunks ?? []) pieces.push(sseData(chunkObject({ content: c }, { model, id })));
      const calls = script.toolCalls ?? [];
      calls.forEach((call, index) => {
        const first = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
        pieces.push(sseData(chunkObject({ tool_calls: [first] }, { model, id })));
        const args = call.arguments ?? '';
        const step = script.argPiece ?? 4;
        for (let at = 0; at < args.length; at += step) {
          const part = { index, function: { arguments: args.slice(at, at + step) } };
          pieces.push(sseData(chunkObject({ tool_calls: [part] }, { model, id })));
        }
      });
      if (!script.cut && !script.stall) {
        const finish = script.finishReason ?? (calls.length ? 'tool_calls' : 'stop');
        pieces.push(sseData(chunkObject({}, { model, id, finishReason: finish })));
        if (script.usage) pieces.push(sseData({ id, object: 'chat.completion.chunk', model, choices: [], usage: script.usage }));
        pieces.push(sseData('[DONE]'));
      }
      delay = script.delayMs ?? 0;
    }

    for (let i = 0; i < pieces.length; i++) {
      // The role delta goes out at once; every later piece waits `delay`.
      if (delay && (script.raw || i > 0)) await pause(delay);
      if (!write(res, pieces[i])) return;
    }

    if (script.cut) {
      // Let the written bytes reach the client, then kill the connection mid-response.
      await pause(50);
      record.cut = true;
      res.socket?.destroy();
      return;
    }
    if (script.stall) return; // keep the connection open; close() or the client ends it
    res.end();
  }

  async function handleChat(req, res, record) {
    let script = queue.length > 0 ? queue.shift() : defaultScript;
    if (typeof script === 'function') script = await script(record.body ?? {});
    if (script) return serveScript(req, res, record, script);

    const body = record.body ?? {};
    const text = echoReply(body);
    if (body.stream !== true) {
      return sendJson(res, 200, {
        id: `chatcmpl-fake-${++idCounter}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? MODELS[0],
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    }
    return serveScript(req, res, record, { chunks: wordChunks(text), delayMs: 20 });
  }

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          body = null;
        }
      }
      const url = new URL(req.url, 'http://127.0.0.1');
      const record = {
        method: req.method,
        path: url.pathname,
        url: req.url,
        headers: { ...req.headers },
        body,
        rawBody: raw,
        time: Date.now(),
        aborted: false,
        ended: false,
        cut: false,
      };
      Object.defineProperty(record, 'closed', {
        enumerable: false,
        value: new Promise((resolve) => {
          res.on('close', () => {
            record.ended = true;
            if (record.cut) return resolve('cut');
            if (!res.writableFinished) {
              record.aborted = true;
              return resolve('aborted');
            }
            resolve('finished');
          });
        }),
      });
      requests.push(record);

      try {
        if (req.method === 'OPTIONS') {
          writeHead(res, 204, { 'Content-Length': '0' });
          return res.end();
        }
        const path = url.pathname.replace(/\/+$/, '');
        if (req.method === 'GET' && path === '/v1/models') {
          return sendJson(res, 200, { object: 'list', data: MODELS.map((id) => ({ id, object: 'model', owned_by: 'fake' })) });
        }
        if (tokenizer && req.method === 'POST' && path === '/extras/tokenize/count') {
          return sendJson(res, 200, { count: fakeTokens(body?.input ?? '') });
        }
        if (ollama && req.method === 'GET' && path === '/api/version') {
          return sendJson(res, 200, { version: '0.12.3' });
        }
        if (ollama?.show && req.method === 'POST' && path === '/api/show') {
          const known = ollama.show[body?.model];
          return known ? sendJson(res, 200, known) : sendJson(res, 404, { error: `model '${body?.model}' not found` });
        }
        if (ollama?.ps && req.method === 'GET' && path === '/api/ps') {
          return sendJson(res, 200, ollama.ps);
        }
        if (req.method === 'POST' && path === '/v1/chat/completions') {
          return await handleChat(req, res, record);
        }
        return sendJson(res, 404, { error: { message: `fake-llm: no route for ${req.method} ${url.pathname}`, code: 404 } });
      } catch (err) {
        if (!res.headersSent) sendJson(res, 500, { error: { message: `fake-llm crashed: ${err.message}` } });
        else res.destroy();
      }
    });
  });

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    port,
    baseUrl: `${origin}/v1`,
    requests,
    enqueue(...scripts) {
      queue.push(...scripts);
    },
    setDefault(script) {
      defaultScript = script ?? null;
    },
    setTokenizer(on) {
      tokenizer = Boolean(on);
    },
    setOllama(answers) {
      ollama = answers ?? null;
    },
    /** Forgets queued scripts, the default script and recorded requests. */
    reset() {
      queue.length = 0;
      requests.length = 0;
      defaultScript = null;
      tokenizer = false;
      ollama = null;
    },
    get pending() {
      return queue.length;
    },
    chatRequests() {
      return requests.filter((r) => r.method === 'POST' && /\/chat\/completions\/?$/.test(r.path));
    },
    /** Resolves once `predicate(requests)` holds, polling; rejects after `timeout` ms. */
    async waitFor(predicate, { timeout = 10_000, message = 'fake-llm condition' } = {}) {
      const deadline = Date.now() + timeout;
      while (!predicate(requests)) {
        if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${message}`);
        await sleep(25);
      }
    },
    async close() {
      closing = true;
      for (const [t, resolve] of timers) {
        clearTimeout(t);
        resolve(); // the waiting writer sees `closing` and stops
      }
      timers.clear();
      const closed = new Promise((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      sockets.clear();
      await closed;
    },
  };
}
