// Checks of the test harness itself (fake LLM server, static server, env), with plain fetch and
// no browser, so a harness bug shows up here and not as a mysterious app failure.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startFakeLlm, sseContent } from './support/fake-llm.mjs';
import { startStatic } from './support/static-server.mjs';
import { requireDist, supportDir } from './support/env.mjs';

/** Reads an SSE response: returns { events: [data strings], reads: number of body reads, error }. */
async function readSse(res) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let reads = 0;
  let error = null;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      reads++;
      buf += decoder.decode(value, { stream: true });
    }
  } catch (err) {
    error = err;
  }
  const events = buf
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      assert.match(block, /^data: /, `SSE block must start with "data: ": ${JSON.stringify(block)}`);
      return block.slice('data: '.length);
    });
  return { events, reads, error, text: buf };
}

function contentOf(events) {
  return events
    .filter((e) => e !== '[DONE]')
    .map((e) => JSON.parse(e).choices[0].delta.content ?? '')
    .join('');
}

const chat = (fake, body, init = {}) =>
  fetch(`${fake.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify(body),
    ...init,
  });

const userBody = (text, extra = {}) => ({
  model: 'fake-small',
  stream: true,
  messages: [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'earlier' },
    { role: 'assistant', content: 'Echo: earlier' },
    { role: 'user', content: text },
  ],
  ...extra,
});

describe('fake LLM server', () => {
  let fake;
  before(async () => {
    fake = await startFakeLlm();
  });
  after(async () => {
    await fake?.close();
  });

  test('listens on 127.0.0.1 with a /v1 base URL and lists models', async () => {
    assert.match(fake.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const res = await fetch(`${fake.baseUrl}/models`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(
      (await res.json()).data.map((m) => m.id),
      ['fake-small', 'fake-large'],
    );
  });

  test('answers CORS preflight with 204 and the allowed headers', async () => {
    const res = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:1', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    const allowed = res.headers.get('access-control-allow-headers').toLowerCase();
    assert.match(allowed, /authorization/);
    assert.match(allowed, /content-type/);
    assert.match(res.headers.get('access-control-expose-headers'), /Retry-After/i);
  });

  test('default reply streams "Echo: <last user message>" in word chunks with role first and [DONE] last', async () => {
    fake.reset();
    const res = await chat(fake, userBody('hello brave new world'));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/event-stream/);
    const { events, error } = await readSse(res);
    assert.equal(error, null);
    assert.equal(events.at(-1), '[DONE]');
    const objs = events.slice(0, -1).map((e) => JSON.parse(e));
    assert.equal(objs[0].choices[0].delta.role, 'assistant');
    assert.equal(objs.at(-1).choices[0].finish_reason, 'stop');
    const contentChunks = objs.map((o) => o.choices[0].delta.content).filter((c) => c);
    assert.deepEqual(contentChunks, ['Echo: ', 'hello ', 'brave ', 'new ', 'world']);
    assert.equal(contentOf(events), 'Echo: hello brave new world');
    for (const o of objs) assert.equal(o.object, 'chat.completion.chunk');

    // The request was recorded with parsed body and headers.
    const [req] = fake.chatRequests();
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/v1/chat/completions');
    assert.equal(req.headers.authorization, 'Bearer sk-test');
    assert.equal(req.body.model, 'fake-small');
    assert.equal(req.body.messages.at(-1).content, 'hello brave new world');
    assert.equal(await req.closed, 'finished');
  });

  test('default reply without stream:true is one chat.completion object', async () => {
    const res = await chat(fake, userBody('plain', { stream: false }));
    const json = await res.json();
    assert.equal(json.object, 'chat.completion');
    assert.equal(json.choices[0].message.content, 'Echo: plain');
  });

  test('scripts are used in order, then the default resumes; chunks arrive in separate reads', async () => {
    fake.reset();
    fake.enqueue({ chunks: ['one ', 'two ', 'three'], delayMs: 120 }, { chunks: ['second'] });
    const first = await readSse(await chat(fake, userBody('x')));
    assert.equal(contentOf(first.events), 'one two three');
    assert.ok(first.reads >= 3, `delayed chunks should arrive in separate reads, got ${first.reads}`);
    const second = await readSse(await chat(fake, userBody('x')));
    assert.equal(contentOf(second.events), 'second');
    const third = await readSse(await chat(fake, userBody('back to echo')));
    assert.equal(contentOf(third.events), 'Echo: back to echo');
    assert.equal(fake.pending, 0);
  });

  test('reasoning pieces stream as delta.reasoning_content before the content', async () => {
    fake.enqueue({ reasoning: ['think ', 'hard'], chunks: ['answer'] });
    const { events } = await readSse(await chat(fake, userBody('x')));
    const deltas = events.slice(0, -1).map((e) => JSON.parse(e).choices[0].delta);
    const reasoning = deltas.map((d) => d.reasoning_content).filter(Boolean);
    assert.deepEqual(reasoning, ['think ', 'hard']);
    const firstContent = deltas.findIndex((d) => d.content);
    const lastReasoning = deltas.findLastIndex((d) => d.reasoning_content);
    assert.ok(lastReasoning < firstContent, 'reasoning comes before content');
    assert.equal(contentOf(events), 'answer');
  });

  test('cut: the connection dies after the chunks, without finish chunk or [DONE]', async () => {
    fake.reset();
    fake.enqueue({ chunks: ['half ', 'a reply'], cut: true });
    const res = await chat(fake, userBody('x'));
    assert.equal(res.status, 200);
    const { events, error, text } = await readSse(res);
    assert.ok(error, 'reading a cut stream must fail');
    assert.ok(!text.includes('[DONE]'), 'no [DONE] in a cut stream');
    assert.ok(!text.includes('finish_reason":"stop'), 'no finish chunk in a cut stream');
    assert.equal(contentOf(events), 'half a reply');
    assert.equal(await fake.chatRequests()[0].closed, 'cut');
  });

  test('stall: chunks then silence until the client aborts; the abort is seen', async () => {
    fake.reset();
    fake.enqueue({ chunks: ['slow ', 'start'], stall: true });
    const controller = new AbortController();
    const res = await chat(fake, userBody('x'), { signal: controller.signal });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    while (!buf.includes('start')) {
      const { value, done } = await reader.read();
      assert.equal(done, false, 'a stalled stream must not end by itself');
      buf += decoder.decode(value, { stream: true });
    }
    assert.ok(!buf.includes('[DONE]'));
    const req = fake.chatRequests()[0];
    assert.equal(req.ended, false, 'the stalled response is still open');
    controller.abort();
    await assert.rejects(reader.read());
    assert.equal(await req.closed, 'aborted');
    assert.equal(req.aborted, true);
  });

  test('401 script returns 401 with its JSON body and CORS headers', async () => {
    fake.enqueue({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    const res = await chat(fake, userBody('x'));
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('content-type'), /application\/json/);
    assert.deepEqual(await res.json(), { error: { message: 'Incorrect API key provided' } });
  });

  test('error status without a body gets a JSON error body; Retry-After is sent', async () => {
    fake.enqueue({ status: 429, headers: { 'Retry-After': '1' } });
    const res = await chat(fake, userBody('x'));
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '1');
    assert.match((await res.json()).error.message, /429/);
  });

  test('string body with its own Content-Type is sent as-is', async () => {
    fake.enqueue({ headers: { 'Content-Type': 'text/html' }, body: '<html>captive</html>' });
    const res = await chat(fake, userBody('x'));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html');
    assert.equal(await res.text(), '<html>captive</html>');
  });

  test('raw pieces are written byte for byte', async () => {
    const raw = [...sseContent(['ok']).slice(0, 2), 'data: {"error":{"message":"server_is_overloaded"}}\n\n', ': comment\r\n\r\n'];
    fake.enqueue({ raw, rawDelayMs: 10 });
    const res = await chat(fake, userBody('x'));
    assert.equal(await res.text(), raw.join(''));
  });

  test('setDefault replaces the echo until reset', async () => {
    fake.setDefault({ status: 500, body: { error: { message: 'meltdown' } } });
    assert.equal((await chat(fake, userBody('x'))).status, 500);
    assert.equal((await chat(fake, userBody('x'))).status, 500);
    fake.reset();
    assert.equal((await chat(fake, userBody('x'))).status, 200);
  });

  test('unknown routes are 404 JSON with CORS', async () => {
    const res = await fetch(`${fake.origin}/v2/whatever`);
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });
});

test('fake close() does not hang on a stalled connection, and frees the port', async () => {
  const fake = await startFakeLlm();
  fake.enqueue({ chunks: ['a'], stall: true }, { chunks: ['b'], delayMs: 60_000 });
  const r1 = await chat(fake, userBody('x'));
  const r2 = await chat(fake, userBody('x'));
  const reading = Promise.allSettled([r1.text(), r2.text()]);
  await fake.close(); // would hang on the stalled / delayed responses without socket tracking
  const results = await reading;
  assert.ok(results.every((r) => r.status === 'rejected'), 'open responses are destroyed by close()');
  await assert.rejects(fetch(`${fake.baseUrl}/models`), 'nothing listens after close()');
});

describe('static server', () => {
  let tmp;
  let web;
  let sub;
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-static-'));
    const root = path.join(tmp, 'dist');
    fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>root index</title>');
    fs.writeFileSync(path.join(root, 'app.js'), 'export {};');
    fs.writeFileSync(path.join(root, 'mod.mjs'), 'export {};');
    fs.writeFileSync(path.join(root, 'app_bg.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    fs.writeFileSync(path.join(root, 'style.css'), 'body{}');
    fs.writeFileSync(path.join(root, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    fs.writeFileSync(path.join(root, 'data.json'), '{}');
    fs.writeFileSync(path.join(root, 'assets', 'index.html'), 'assets index');
    fs.writeFileSync(path.join(tmp, 'secret.txt'), 'TOP SECRET');
    web = await startStatic({ root });
    sub = await startStatic({ root, prefix: '/tools/satori/' });
  });
  after(async () => {
    await web?.close();
    await sub?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Raw GET (no URL normalisation by fetch, so `..` reaches the server as typed). */
  function rawGet(server, rawPath) {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: server.port, path: rawPath, method: 'GET' }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  test('serves index.html for the root and files with the right MIME types', async () => {
    assert.match(web.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await fetch(web.url);
    assert.equal(index.status, 200);
    assert.match(index.headers.get('content-type'), /^text\/html/);
    assert.match(await index.text(), /root index/);
    const expect = {
      'app.js': /^text\/javascript/,
      'mod.mjs': /^text\/javascript/,
      'app_bg.wasm': /^application\/wasm$/,
      'style.css': /^text\/css/,
      'icon.svg': /^image\/svg\+xml/,
      'data.json': /^application\/json/,
      'index.html': /^text\/html/,
    };
    for (const [file, mime] of Object.entries(expect)) {
      const res = await fetch(web.url + file);
      assert.equal(res.status, 200, file);
      assert.match(res.headers.get('content-type'), mime, file);
      await res.arrayBuffer();
    }
    const wasm = new Uint8Array(await (await fetch(`${web.url}app_bg.wasm`)).arrayBuffer());
    assert.deepEqual([...wasm.slice(0, 4)], [0, 0x61, 0x73, 0x6d]);
  });

  test('a precompressed copy goes out as it is when the browser takes its encoding', async () => {
    const root = path.join(tmp, 'dist');
    const zlib = await import('node:zlib');
    const body = 'export const big = "' + 'satori '.repeat(2000) + '";\n';
    fs.writeFileSync(path.join(root, 'big.js'), body);
    fs.writeFileSync(path.join(root, 'big.js.gz'), zlib.gzipSync(body, { level: 9 }));
    fs.writeFileSync(path.join(root, 'big.js.br'), zlib.brotliCompressSync(body));
    const get = (encoding) => new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: web.port, path: '/big.js', headers: encoding ? { 'accept-encoding': encoding } : {} }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    const br = await get('gzip, deflate, br, zstd');
    assert.equal(br.headers['content-encoding'], 'br');
    assert.match(br.headers['content-type'], /^text\/javascript/);
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.equal(zlib.brotliDecompressSync(br.body).toString(), body);
    assert.ok(br.body.length < body.length / 10, `${br.body.length} bytes sent for ${body.length}`);
    const gz = await get('gzip;q=1, br;q=0');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(gz.body).toString(), body);
    const plain = await get(undefined);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body.toString(), body);
    // The browser itself decodes it.
    assert.equal(await (await fetch(`${web.url}big.js`)).text(), body);
  });

  test('directories serve their index.html; missing files are 404', async () => {
    const res = await fetch(`${web.url}assets/`);
    assert.equal(await res.text(), 'assets index');
    const redirect = await fetch(`${web.url}assets`, { redirect: 'manual' });
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.get('location'), '/assets/');
    assert.equal((await fetch(`${web.url}nope.js`)).status, 404);
  });

  test('no directory traversal', async () => {
    for (const p of ['/../secret.txt', '/..%2fsecret.txt', '/%2e%2e/secret.txt', '/%2e%2e%2fsecret.txt', '/assets/../../secret.txt', '/..\\secret.txt', '/%2e%2e%5csecret.txt', '/%00', '/%E0%A4%A']) {
      const res = await rawGet(web, p);
      assert.ok([400, 404].includes(res.status), `${p} → ${res.status}`);
      assert.ok(!res.body.includes('TOP SECRET'), `${p} leaked a file outside root`);
    }
    const viaSub = await rawGet(sub, '/tools/satori/../../secret.txt');
    assert.ok(!viaSub.body.includes('TOP SECRET'));
  });

  test('only GET and HEAD', async () => {
    assert.equal((await fetch(web.url, { method: 'POST', body: 'x' })).status, 405);
    const head = await fetch(`${web.url}app.js`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String('export {};'.length));
  });

  test('prefix: serves under the prefix only, redirects the bare prefix', async () => {
    assert.match(sub.url, /^http:\/\/127\.0\.0\.1:\d+\/tools\/satori\/$/);
    const index = await fetch(sub.url);
    assert.equal(index.status, 200);
    assert.match(await index.text(), /root index/);
    const wasm = await fetch(`${sub.url}app_bg.wasm`);
    assert.equal(wasm.headers.get('content-type'), 'application/wasm');
    await wasm.arrayBuffer();
    const bare = await fetch(`${sub.origin}/tools/satori?x=1`, { redirect: 'manual' });
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get('location'), '/tools/satori/?x=1');
    for (const p of ['/', '/index.html', '/app.js', '/tools/', '/tools/satorix/app.js']) {
      assert.equal((await fetch(sub.origin + p)).status, 404, p);
    }
  });

  test('CLI prints "Serving ROOT at URL" and serves', async () => {
    const root = path.join(tmp, 'dist');
    const child = spawn(process.execPath, [path.join(supportDir, 'static-server.mjs'), '--root', root, '--port', '0', '--host', '127.0.0.1', '--prefix', '/p'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise((resolve, reject) => {
        let out = '';
        let err = '';
        child.stdout.on('data', (c) => {
          out += c;
          if (out.includes('\n')) resolve(out.split('\n')[0]);
        });
        child.stderr.on('data', (c) => (err += c));
        child.on('exit', (code) => reject(new Error(`static-server exited with ${code}: ${err}`)));
      });
      const m = line.match(/^Serving (.+) at (http:\/\/127\.0\.0\.1:\d+\/p\/)$/);
      assert.ok(m, `unexpected first line: ${line}`);
      assert.equal(m[1], fs.realpathSync(root));
      const res = await fetch(`${m[2]}app.js`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type'), /^text\/javascript/);
      await res.text();
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    }
  });

  test('CLI fails clearly without a root directory', async () => {
    const child = spawn(process.execPath, [path.join(supportDir, 'static-server.mjs'), '--root', path.join(tmp, 'missing'), '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.notEqual(code, 0);
    assert.match(err, /root directory not found/);
  });
});

test('requireDist() explains how to build when index.html is missing', () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-nodist-'));
  const saved = process.env.SATORI_DIST;
  try {
    process.env.SATORI_DIST = empty;
    assert.throws(() => requireDist(), /build the app first \(scripts\/build\.sh\)/);
    fs.writeFileSync(path.join(empty, 'index.html'), '');
    assert.equal(requireDist(), empty);
  } finally {
    if (saved === undefined) delete process.env.SATORI_DIST;
    else process.env.SATORI_DIST = saved;
    fs.rmSync(empty, { recursive: true, force: true });
  }
});
