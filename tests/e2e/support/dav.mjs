// A real WebDAV server for the sync tests: tests/e2e/support/dav-server.py (WsgiDAV on cheroot,
// with CORS for a page of another origin), run by the Python of
// ${SATORI_CACHE:-~/.cache/satori}/dav-venv (scripts/setup.sh installs it).
//
//   const dav = await startDav({ root, port, user, password }); // serves the folder `root`
//   dav.url          // http://127.0.0.1:PORT/
//   dav.log()        // one object per request so far: {method, path, status, if_match, if_none_match}
//   await dav.stop() // SIGTERM, SIGKILL after 5 s; waits for the exit (root and log stay)
//
// `port` (default 0: a free one) lets a test start the server again where it was.
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir, supportDir } from './env.mjs';
import { startListening, readJsonLines } from './child.mjs';

export async function startDav({ root, port = 0, user, password, log }) {
  const python = path.join(cacheDir(), 'dav-venv', 'bin', 'python');
  if (!fs.existsSync(python)) {
    throw new Error(`${python} not found: run scripts/setup.sh (it installs WsgiDAV there)`);
  }
  const logFile = log ?? path.join(root, '..', `dav-${path.basename(root)}.jsonl`);
  const args = [path.join(supportDir, 'dav-server.py'), '--root', root, '--port', String(port), '--log', logFile];
  if (user) args.push('--user', user, '--password', password ?? '');
  const server = await startListening(python, args, { name: 'WebDAV server', re: /^listening (http:\/\/127\.0\.0\.1:\d+\/)\r?$/m });
  server.log = () => readJsonLines(fs, logFile);
  server.logFile = logFile;
  return server;
}
