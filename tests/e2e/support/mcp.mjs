// A real MCP server for the end-to-end tests: tests/e2e/support/mcp-server.py (official MCP
// Python SDK 2.x, Streamable HTTP at /mcp, stateful sessions, SSE responses unless `json`), run by
// the Python of ${SATORI_CACHE:-~/.cache/satori}/mcp-venv (or SATORI_MCP_PYTHON), which must have
// the `mcp` and `uvicorn` packages.
//
//   const mcp = await startMcp({ token, cors, json, report }); // waits for its `listening` line (≤ 30 s)
//   mcp.url            // http://127.0.0.1:PORT/mcp
//   mcp.pid            // the server process
//   mcp.log()          // one object per HTTP request so far, preflights included:
//                      // {method, path, authorization, origin, mcp_method, session_id,
//                      //  protocol_version, call, status} (header values or null; `call`:
//                      //  {name, arguments} of a tools/call)
//   mcp.output()       // the tail of the server's stdout + stderr
//   await mcp.stop()   // SIGTERM, SIGKILL after 5 s; waits for the exit, removes the log
//
// Options: `port` — listen there (default 0: a free port; the same port again starts a server
// that knows none of the sessions of the one before); `token` — every request but a CORS preflight must carry `Authorization: Bearer <token>`
// (else 401 with a JSON body); `cors: false` — no CORS headers at all, so a page on another origin
// fails with a CORS error; `json: true` — plain JSON responses instead of SSE; `report: true` —
// also the tool send_report(text), a way out for what a chat holds.
//
// Tools: lookup_order(order_id), add(a, b), fail_always(reason) (result isError: true, text
// `Error executing tool fail_always: inventory offline: <reason>`), slow_echo(text, seconds).
//
// A server that fails to start is stopped before startMcp() throws, and any server still running
// when the Node process exits is killed (by its own pid, nothing else).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { cacheDir, supportDir } from './env.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Children started here and not yet stopped. */
const running = new Set();

// Last resort if the runner dies without running after(): kill only our own children, by pid.
process.once('exit', () => {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

/** The Python that runs mcp-server.py: SATORI_MCP_PYTHON, else <SATORI_CACHE>/mcp-venv/bin/python. */
export function mcpPython() {
  return process.env.SATORI_MCP_PYTHON || path.join(cacheDir(), 'mcp-venv', 'bin', 'python');
}

/** Starts mcp-server.py on a free loopback port and waits until it accepts connections. */
export async function startMcp({ token, cors = true, json = false, report = false, port = 0 } = {}) {
  const python = mcpPython();
  if (!fs.existsSync(python)) {
    throw new Error(
      `${python} not found: the MCP tests need a Python with the \`mcp\` and \`uvicorn\` packages ` +
        '(set SATORI_MCP_PYTHON, or create <SATORI_CACHE>/mcp-venv with them)',
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-mcp-'));
  const logFile = path.join(dir, 'requests.jsonl');
  const args = [path.join(supportDir, 'mcp-server.py'), '--port', String(port), '--log', logFile];
  if (token != null) args.push('--token', String(token));
  if (!cors) args.push('--no-cors');
  if (json) args.push('--json');
  if (report) args.push('--report');
  const child = spawn(python, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  running.add(child);

  let out = '';
  let stdoutLines = '';
  let onListening;
  const listening = new Promise((resolve) => {
    onListening = resolve;
  });
  const keep = (chunk) => {
    out = (out + chunk).slice(-20_000);
  };
  child.stdout.on('data', (chunk) => {
    keep(chunk);
    stdoutLines += chunk;
    const m = /^listening (http:\/\/127\.0\.0\.1:\d+\/mcp)\r?$/m.exec(stdoutLines);
    if (m) onListening(m[1]);
  });
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const server = {
    url: null,
    pid: child.pid,
    child,
    exited,
    output: () => out,
    log: () => readLog(logFile),
    stop: async () => {
      await stopChild(child, exited);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };

  // Only resolving promises in the race: a loser that rejected later would be an unhandled rejection.
  let timer;
  const url = await Promise.race([
    listening,
    exited.then(({ code, signal }) => new Error(`MCP server exited early (${code ?? signal}):\n${out}`)),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(new Error(`MCP server did not print its listening line within 30 s:\n${out}`)), 30_000);
    }),
  ]);
  clearTimeout(timer);
  if (url instanceof Error) {
    await server.stop();
    throw url;
  }
  server.url = url;
  return server;
}

/** The request log as objects (a line still being written is skipped). */
function readLog(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
  const entries = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      // partial last line
    }
  }
  return entries;
}

async function stopChild(child, exited) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const how = await Promise.race([exited.then(() => 'exited'), sleep(5_000).then(() => 'timeout')]);
    if (how === 'timeout') {
      child.kill('SIGKILL');
      await exited;
    }
  }
  running.delete(child);
}
