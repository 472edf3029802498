// A test server run as a child process that prints one `listening <url>` line once it accepts
// connections (tests/e2e/support/mcp-server.py, dav-server.py).
//
//   const s = await startListening(python, args, { name: 'MCP server', re: /^listening (\S+)$/m });
//   s.url, s.pid, s.output()   // the URL the line gave, the process, the tail of its output
//   await s.stop()             // SIGTERM, SIGKILL after 5 s; waits for the exit
//
// A server that fails to start is stopped before startListening() throws (within 30 s), and any
// server still running when the Node process exits is killed (by its own pid, nothing else).
import { spawn } from 'node:child_process';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Children started here and not yet stopped. */
const running = new Set();

// Last resort if the runner dies without running after(): kill only our own children, by pid.
process.once('exit', () => {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

/** SIGTERM to `child` (if it still runs), SIGKILL after 5 s; resolves once it has exited. */
export async function stopProcess(child, exited) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const how = await Promise.race([exited.then(() => 'exited'), sleep(5_000).then(() => 'timeout')]);
    if (how === 'timeout') {
      child.kill('SIGKILL');
      await exited;
    }
  }
}

export async function startListening(command, args, { name, re }) {
  const child = spawn(command, args, {
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
    const m = re.exec(stdoutLines);
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
    stop: async () => {
      await stopProcess(child, exited);
      running.delete(child);
    },
  };
  // Only resolving promises in the race: a loser that rejected later would be an unhandled rejection.
  let timer;
  const url = await Promise.race([
    listening,
    exited.then(({ code, signal }) => new Error(`${name} exited early (${code ?? signal}):\n${out}`)),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(new Error(`${name} did not print its listening line within 30 s:\n${out}`)), 30_000);
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

/** A server's request log (one JSON object per line) as objects; a line still being written is skipped. */
export function readJsonLines(fs, file) {
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
