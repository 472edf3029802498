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
import { cacheDir, supportDir } from './env.mjs';
import { startListening, readJsonLines } from './child.mjs';

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
  let server;
  try {
    server = await startListening(python, args, { name: 'MCP server', re: /^listening (http:\/\/127\.0\.0\.1:\d+\/mcp)\r?$/m });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const stop = server.stop;
  server.log = () => readJsonLines(fs, logFile);
  server.stop = async () => {
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return server;
}
