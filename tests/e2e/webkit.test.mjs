// The model in the tab in WebKit, the engine of Safari: Debian's WebKitGTK (its MiniBrowser,
// driven by WebKitWebDriver over W3C WebDriver; both installed by scripts/setup.sh) on a virtual
// X display (Xvfb), on plain static hosting (not cross-origin isolated). No server: the first
// message gets the first-run offer, the click downloads the model and the answer streams in; a
// second visit answers from the Cache API with no model bytes fetched; Stop halts an answer. With
// JavaScriptCore's WebAssembly SIMD turned off, the model says this browser cannot run it.
// This is WebKitGTK, not Safari itself: same engine (WebCore, JavaScriptCore and its
// WebAssembly SIMD), other shell, newer than Safari 16.4.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { startStatic } from './support/static-server.mjs';
import fs from 'node:fs';
import path from 'node:path';
import { artifactsDir, freePort, requireDist } from './support/env.mjs';
import { ask, refusedAfterOffer, stopEarly, typesets } from './support/in-page.mjs';

// Debian installs MiniBrowser under the architecture's library directory.
const MINIBROWSER = process.env.SATORI_MINIBROWSER ?? (() => {
  const found = fs.readdirSync('/usr/lib').map((d) => path.join('/usr/lib', d, 'webkit2gtk-4.1/MiniBrowser')).find((f) => fs.existsSync(f));
  return found ?? 'MiniBrowser (not found under /usr/lib/*/webkit2gtk-4.1: run scripts/setup.sh or set SATORI_MINIBROWSER)';
})();
const DRIVER = process.env.SATORI_WEBKITDRIVER ?? 'WebKitWebDriver';

let web = null;
let xvfb = null;
let display = null;
let webkit = null;

/**
 * Ends a process group this file started (by the leader's process id: WebKitWebDriver's group
 * holds the MiniBrowser it launched and that browser's web and network processes): SIGTERM,
 * then SIGKILL if it has not exited within 5 s.
 */
async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Xvfb on the first free display; resolves to its name (`:N`). */
function startXvfb() {
  try {
    execFileSync('which', ['Xvfb'], { stdio: 'ignore' });
  } catch {
    throw new Error('Xvfb not found: run scripts/setup.sh (installs Debian\'s xvfb)');
  }
  xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x900x24', '-nolisten', 'tcp'],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], detached: true });
  let said = '';
  xvfb.stderr.on('data', (d) => { said += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Xvfb did not start: ${said.slice(-500)}`)), 30_000);
    xvfb.stdio[3].once('data', (d) => {
      clearTimeout(timer);
      resolve(`:${String(d).trim()}`);
    });
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${said.slice(-500)}`)));
    xvfb.once('error', reject);
  });
}

/**
 * WebKitWebDriver on a free port with `env` added (JavaScriptCore reads `JSC_*` options from it),
 * and a MiniBrowser session: `{ run, visit, close }`. `close` ends the session and the driver;
 * it is safe to call after a failure halfway.
 */
async function openWebKit(env = {}) {
  try {
    execFileSync('which', [DRIVER], { stdio: 'ignore' });
  } catch {
    throw new Error(`${DRIVER} not found: run scripts/setup.sh (installs Debian's webkit2gtk-driver) or set SATORI_WEBKITDRIVER`);
  }
  const port = await freePort();
  const driver = spawn(DRIVER, [`--port=${port}`, '--host=127.0.0.1'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env, DISPLAY: display },
    detached: true,
  });
  let said = '';
  driver.stderr.on('data', (d) => { said += d; });
  driver.on('error', (e) => { said += `\n${e.message}`; });
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const r = await fetch(base + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const m = await r.json();
    if (!r.ok) throw new Error(`${method} ${path}: ${m.value?.error}: ${m.value?.message} ${said.slice(-300)}`);
    return m.value;
  };
  let session = null;
  // Ending the session closes the browser; stopping the driver's process group ends whatever is
  // left (a browser started by a session request that then failed, or a DELETE that failed).
  const close = async () => {
    if (session) await call('DELETE', session).catch(() => {});
    session = null;
    await stop(driver);
  };
  try {
    for (const end = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 100))) {
      try {
        if ((await call('GET', '/status')).ready) break;
      } catch (e) {
        if (Date.now() > end) throw new Error(`WebKitWebDriver did not answer: ${e.message} ${said.slice(-500)}`);
      }
    }
    const created = await call('POST', '/session', {
      capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } } },
    });
    session = `/session/${created.sessionId}`;
    await call('POST', `${session}/timeouts`, { script: 600_000 }); // above the page's own waits
  } catch (e) {
    await close();
    throw e;
  }
  /** Runs `fn` (a function's source, no arguments, may be async) in the page; its JSON result. */
  const run = async (fn) => {
    const script = `const done = arguments[arguments.length - 1];
      (${fn})().then((v) => done({ ok: JSON.stringify(v) }), (e) => done({ error: String(e) + ' at ' + (e && e.stack) }));`;
    const r = await call('POST', `${session}/execute/async`, { script, args: [] });
    if (r.error) {
      const shot = await call('GET', `${session}/screenshot`).catch(() => null);
      if (shot) {
        fs.mkdirSync(artifactsDir(), { recursive: true });
        fs.writeFileSync(path.join(artifactsDir(), 'webkit-failure.png'), Buffer.from(shot, 'base64'));
      }
      throw new Error(`in WebKit: ${r.error.slice(0, 800)}`);
    }
    return JSON.parse(r.ok);
  };
  const visit = (url) => call('POST', `${session}/url`, { url });
  return { run, visit, close };
}

// The smallest module with a SIMD instruction (as the model's worker checks).
const HAS_SIMD = 'async () => WebAssembly.validate(new Uint8Array([0,97,115,109,1,0,0,0,1,5,1,96,0,1,123,3,2,1,0,10,10,1,8,0,65,0,253,15,253,98,11]))';

before(async () => {
  web = await startStatic({ root: requireDist(), prefix: '/' });
  display = await startXvfb();
  webkit = await openWebKit();
});

after(async () => {
  await webkit?.close();
  await stop(xvfb);
  await web?.close();
});

test('WebKit (WebKitGTK), no server, not cross-origin isolated: the in-browser model is offered, downloads and answers; a second visit answers from the cache; Stop halts an answer', async () => {
  const { run, visit } = webkit;
  await visit(web.url);
  assert.match(await run('async () => navigator.userAgent'), /AppleWebKit\//);
  assert.equal(await run(HAS_SIMD), true, 'WebAssembly SIMD in this WebKit');
  const first = await run(ask('What is the capital of France?', true));
  assert.match(first.offered ?? '', /^Use the in-browser model \(\d+ MB download\)$/);
  assert.equal(first.isolated, false);
  assert.equal(first.status, 'complete', `the answer: ${JSON.stringify(first)}`);
  assert.ok(first.text.trim().length > 0, 'the model said something');
  assert.deepEqual(first.alerts, []);
  assert.equal(first.provider, 'browser');
  const kept = await run('async () => (await caches.keys()).filter((k) => k === "satori-model")');
  assert.deepEqual(kept, ['satori-model'], 'the pieces kept in the Cache API');
  const pieces = () => web.requests.filter((u) => /\/model\/[^/]+\.bin$/.test(u));
  const fetched = pieces();
  assert.ok(fetched.length >= 2, `the model's pieces downloaded: ${fetched}`);
  assert.equal(new Set(fetched).size, fetched.length, 'each piece once');

  await visit(web.url);
  const second = await run(ask('Name a color.', false));
  assert.equal(second.status, 'complete', `the answer after a reload: ${JSON.stringify(second)}`);
  assert.ok(second.text.trim().length > 0);
  assert.deepEqual(second.alerts, []);
  assert.deepEqual(pieces().slice(fetched.length), [], 'no model bytes on the second visit');

  // Formulas are typeset, and WebKit draws the MathML (a fraction stacked).
  const math = await run(typesets());
  assert.deepEqual(math.states, ['done', 'done', 'done'], JSON.stringify(math));
  assert.match(math.tags[0], /^mfrac mrow mi mo mn mi/);
  assert.match(math.tags[1], /munderover/);
  assert.match(math.tags[2], /mtable mtr mtd/);
  assert.equal(math.stacked, true, 'the fraction is laid out as a fraction');

  // Stop, as soon as the answer has text: it ends as stopped, and what came stays.
  const stopped = await run(stopEarly('Write a long story about a dragon who learns to bake bread.'));
  assert.equal(stopped.status, 'stopped', JSON.stringify(stopped));
  assert.ok(stopped.words.length > 0, 'what came before Stop stays');
  assert.equal(stopped.later, stopped.words, 'nothing arrives after Stop');
});

test('WebKit without WebAssembly SIMD (JavaScriptCore started with useWasmSIMD off): the in-browser model says plainly that this browser cannot run it, and fetches none of it', async () => {
  const bare = await openWebKit({ JSC_useWasmSIMD: '0' });
  try {
    const before = web.requests.length;
    await bare.visit(web.url);
    assert.equal(await bare.run(HAS_SIMD), false, 'SIMD turned off');
    const said = await bare.run(refusedAfterOffer('SIMD'));
    assert.equal(said.split('\n')[0], 'This browser cannot run the in-browser model: it lacks WebAssembly SIMD (Chrome 91, Firefox 89 and Safari 16.4 have it). Choose a server in Settings.');
    assert.deepEqual(web.requests.slice(before).filter((u) => /\/model\/[^/]+\.bin$/.test(u)), [], 'no model bytes fetched');
  } finally {
    await bare.close();
  }
});
