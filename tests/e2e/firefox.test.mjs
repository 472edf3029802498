// The model in the tab in a second engine: Debian's Firefox ESR (installed by scripts/setup.sh),
// headless, on plain static hosting (not cross-origin isolated), driven over WebDriver BiDi —
// the protocol stock Firefox speaks (Playwright drives only its own patched Firefox). No server:
// the first message gets the first-run offer, the click downloads the model and the answer
// streams in; a second visit answers from the Cache API. On a host without the model, a GGUF file
// picked in Settings (set over BiDi's input.setFiles) is kept and answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { startStatic } from './support/static-server.mjs';
import { freePort, requireDist } from './support/env.mjs';
import { smollm2Gguf } from './support/llama.mjs';
import { ask, refusedAfterOffer, typesets } from './support/in-page.mjs';

const { ws: WebSocket } = createRequire(import.meta.url)('playwright-core/lib/utilsBundle');
const FIREFOX = process.env.SATORI_FIREFOX ?? 'firefox-esr';

let web = null;
let firefox = null;
let profile = null;
let bidi = null;

/** Firefox with its WebDriver BiDi endpoint; resolves to `call(method, params)`. */
async function startFirefox() {
  try {
    execFileSync(FIREFOX, ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(`${FIREFOX} not found: run scripts/setup.sh (installs Debian's firefox-esr) or set SATORI_FIREFOX`);
  }
  profile = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-firefox-'));
  const port = await freePort();
  firefox = spawn(FIREFOX, ['--headless', '--no-remote', '--profile', profile, '--remote-debugging-port', String(port)],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Firefox did not open its BiDi port: ${said.slice(-500)}`)), 60_000);
    firefox.stderr.on('data', (d) => {
      said += d;
      if (said.includes('WebDriver BiDi listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    firefox.on('exit', (code) => reject(new Error(`Firefox exited (${code}): ${said.slice(-500)}`)));
  });
  const socket = new WebSocket(`ws://127.0.0.1:${port}/session`);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let next = 0;
  const pending = new Map();
  socket.on('message', (data) => {
    const m = JSON.parse(String(data));
    if (m.id !== undefined && pending.has(m.id)) {
      pending.get(m.id)(m);
      pending.delete(m.id);
    }
  });
  const call = (method, params) => new Promise((resolve, reject) => {
    const id = ++next;
    pending.set(id, (m) => (m.type === 'error' ? reject(new Error(`${method}: ${m.error}: ${m.message}`)) : resolve(m.result)));
    socket.send(JSON.stringify({ id, method, params }));
  });
  call.close = () => socket.close();
  await call('session.new', { capabilities: {} });
  return call;
}

before(async () => {
  web = await startStatic({ root: requireDist(), prefix: '/' });
  bidi = await startFirefox();
});

after(async () => {
  bidi?.close();
  if (firefox && firefox.exitCode === null) {
    const exited = new Promise((resolve) => firefox.once('exit', resolve));
    firefox.kill();
    await exited;
  }
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
  await web?.close();
});

/** Runs `fn` (a function's source, no arguments, may be async) in the page; its JSON result. */
async function run(context, fn) {
  const r = await bidi('script.evaluate', { expression: `(${fn})().then(JSON.stringify)`, target: { context }, awaitPromise: true });
  if (r.type === 'exception') throw new Error(`in Firefox: ${JSON.stringify(r.exceptionDetails).slice(0, 800)}`);
  return JSON.parse(r.result.value);
}

test('Firefox ESR, no server, not cross-origin isolated: the in-browser model is offered, downloads, answers, and answers from the cache on a second visit', async () => {
  const { contexts } = await bidi('browsingContext.getTree', {});
  const context = contexts[0].context;
  await bidi('browsingContext.navigate', { context, url: web.url, wait: 'complete' });
  const first = await run(context, ask('What is the capital of France?', true));
  assert.match(first.offered ?? '', /^Use the in-browser model \(\d+ MB download\)$/);
  assert.equal(first.isolated, false);
  assert.equal(first.status, 'complete', `the answer: ${JSON.stringify(first)}`);
  assert.ok(first.text.trim().length > 0, 'the model said something');
  assert.deepEqual(first.alerts, []);
  assert.equal(first.provider, 'browser');
  const kept = await run(context, 'async () => (await caches.keys()).filter((k) => k === "satori-model")');
  assert.deepEqual(kept, ['satori-model'], 'the pieces kept in the Cache API');
  const pieces = () => web.requests.filter((u) => /\/model\/[^/]+\.bin$/.test(u));
  const fetched = pieces();
  assert.ok(fetched.length >= 2, `the model's pieces downloaded: ${fetched}`);
  assert.equal(new Set(fetched).size, fetched.length, 'each piece once');

  await bidi('browsingContext.navigate', { context, url: web.url, wait: 'complete' });
  const second = await run(context, ask('Name a color.', false));
  assert.equal(second.status, 'complete', `the answer after a reload: ${JSON.stringify(second)}`);
  assert.ok(second.text.trim().length > 0);
  assert.deepEqual(second.alerts, []);
  assert.deepEqual(pieces().slice(fetched.length), [], 'no model bytes on the second visit');

  // Formulas are typeset, and Firefox draws the MathML (a fraction stacked).
  const math = await run(context, typesets());
  assert.deepEqual(math.states, ['done', 'done', 'done'], JSON.stringify(math));
  assert.match(math.tags[0], /^mfrac mrow mi mo mn mi/);
  assert.match(math.tags[1], /munderover/);
  assert.match(math.tags[2], /mtable mtr mtd/);
  assert.equal(math.stacked, true, 'the fraction is laid out as a fraction');
});

test('Firefox ESR: on a host without the model, a GGUF file picked in Settings is checked, kept and answers, with nothing fetched from model/', async () => {
  // The same build with model/ left out, on its own origin (its own storage).
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-ff-nomodel-'));
  const dist = requireDist();
  fs.cpSync(dist, root, { recursive: true, filter: (src) => !src.startsWith(path.join(dist, 'model')) });
  const bare = await startStatic({ root, prefix: '/' });
  const gguf = await smollm2Gguf();
  try {
    const { contexts } = await bidi('browsingContext.getTree', {});
    const context = contexts[0].context;
    await bidi('browsingContext.navigate', { context, url: bare.url, wait: 'complete' });
    // The offer is taken; the copy says it is served without the model.
    const refused = await run(context, refusedAfterOffer('served without'));
    assert.equal(refused.split('\n')[0], 'This copy of Satori is served without the in-browser model.');
    // Settings → "Model file (GGUF)": the file set over BiDi, as a user's pick.
    await run(context, `async () => {
      document.querySelector('button[aria-label="Settings"]').click();
      return true;
    }`);
    const input = await bidi('script.evaluate', {
      expression: `new Promise((resolve) => { const t = setInterval(() => {
        const i = document.querySelector('.model-settings input[type=file]');
        if (i && !i.disabled) { clearInterval(t); resolve(i); }
      }, 100); })`,
      target: { context }, awaitPromise: true, resultOwnership: 'root',
    });
    assert.equal(input.type, 'success', JSON.stringify(input).slice(0, 500));
    await bidi('input.setFiles', { context, element: { sharedId: input.result.sharedId }, files: [gguf] });
    const note = await run(context, `async () => {
      const end = Date.now() + 120000;
      for (;;) {
        const n = [...document.querySelectorAll('.model-settings [role="status"]')].map((s) => s.textContent).find((t) => / MB, /.test(t));
        if (n) return n;
        const refused = [...document.querySelectorAll('dialog [role="alert"], [role="dialog"] [role="alert"]')].map((a) => a.textContent.trim()).filter(Boolean).join(' ');
        if (refused || Date.now() > end) return 'not picked: ' + refused;
        await new Promise((r) => setTimeout(r, 200));
      }
    }`);
    const mb = Math.round(fs.statSync(gguf).size / 1e6);
    assert.equal(note, `Model: “${path.basename(gguf)}”, ${mb} MB, 30 layers of 576. Kept in this browser.`);
    await run(context, `async () => {
      [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Cancel').click();
      return true;
    }`);
    const answer = await run(context, ask('Name a color.', false));
    assert.equal(answer.status, 'complete', `the picked file's answer: ${JSON.stringify(answer)}`);
    assert.ok(answer.text.trim().length > 0);
    assert.deepEqual(answer.alerts, []);
    assert.deepEqual(bare.requests.filter((u) => /\/model\/[^/]+\.bin$/.test(u)), [], 'no model piece asked for');
    const kept = await run(context, 'async () => (await caches.keys()).filter((k) => k === "satori-model-file")');
    assert.deepEqual(kept, ['satori-model-file'], 'the picked file kept in the Cache API');
  } finally {
    await bare.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
