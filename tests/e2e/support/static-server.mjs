// A small static file server for the built app (dist/), used by the tests and by `serve`.
//
//   const web = await startStatic({ root: 'dist', prefix: '/tools/satori/' });
//   web.url    // http://127.0.0.1:PORT/tools/satori/
//   await web.close();
//
// CLI:  node tests/e2e/support/static-server.mjs --root dist --port 8000 [--host 127.0.0.1] [--prefix /]
//       prints "Serving ROOT at URL" and runs until SIGINT/SIGTERM.
//
// Serves files under `prefix` only (404 elsewhere); `prefix` without its trailing slash redirects to
// it; a directory serves its index.html; only GET and HEAD; no directory traversal (the resolved
// real path must stay inside root); Cache-Control: no-store so reloads always see the latest build.
import http from 'node:http';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
};

export function mimeType(file) {
  return MIME_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** Whether an Accept-Encoding header takes `name` (listed, and not with q=0). */
function accepts(header, name) {
  return String(header ?? '')
    .split(',')
    .some((part) => {
      const [token, ...params] = part.trim().split(';');
      return token.trim().toLowerCase() === name && !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(p));
    });
}

function normalizePrefix(prefix) {
  let p = String(prefix || '/');
  if (!p.startsWith('/')) p = `/${p}`;
  if (!p.endsWith('/')) p = `${p}/`;
  return p.replace(/\/{2,}/g, '/');
}

function isInside(root, target) {
  return target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function plain(res, status, text, headers = {}) {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export async function startStatic({ root, prefix = '/', port = 0, host = '127.0.0.1' } = {}) {
  if (!root) throw new Error('startStatic: root is required');
  const rootReal = await fsp.realpath(path.resolve(root)); // throws clearly if root is missing
  const pfx = normalizePrefix(prefix);
  const sockets = new Set();

  async function handle(req, res) {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return plain(res, 405, 'Method Not Allowed\n', { Allow: 'GET, HEAD' });
    }
    const qIndex = req.url.indexOf('?');
    const rawPath = qIndex === -1 ? req.url : req.url.slice(0, qIndex);
    const query = qIndex === -1 ? '' : req.url.slice(qIndex);

    if (pfx !== '/' && rawPath === pfx.slice(0, -1)) {
      res.writeHead(301, { Location: pfx + query, 'Content-Length': '0', 'Cache-Control': 'no-store' });
      return res.end();
    }
    if (!rawPath.startsWith(pfx)) return plain(res, 404, 'Not Found\n');

    let rel;
    try {
      rel = decodeURIComponent(rawPath.slice(pfx.length));
    } catch {
      return plain(res, 400, 'Bad Request\n');
    }
    if (rel.includes('\0')) return plain(res, 400, 'Bad Request\n');
    // Refuse any `..` segment outright (also backslash-separated), before touching the disk.
    if (rel.split(/[\\/]+/).some((seg) => seg === '..')) return plain(res, 404, 'Not Found\n');

    let file = path.resolve(rootReal, `.${path.sep}${rel}`);
    if (!isInside(rootReal, file)) return plain(res, 404, 'Not Found\n');

    let stat;
    try {
      file = await fsp.realpath(file);
      if (!isInside(rootReal, file)) return plain(res, 404, 'Not Found\n');
      stat = await fsp.stat(file);
      if (stat.isDirectory()) {
        if (!rawPath.endsWith('/')) {
          res.writeHead(301, { Location: `${rawPath}/${query}`, 'Content-Length': '0', 'Cache-Control': 'no-store' });
          return res.end();
        }
        file = path.join(file, 'index.html');
        stat = await fsp.stat(file);
      }
      if (!stat.isFile()) return plain(res, 404, 'Not Found\n');
    } catch {
      return plain(res, 404, 'Not Found\n');
    }

    // A precompressed copy next to the file (scripts/precompress.mjs) goes out as it is, when
    // the browser takes its encoding.
    const type = mimeType(file);
    let encoding;
    for (const [name, ext] of [['br', '.br'], ['gzip', '.gz']]) {
      if (!accepts(req.headers['accept-encoding'], name)) continue;
      const real = await fsp.realpath(file + ext).catch(() => null);
      const st = real && isInside(rootReal, real) ? await fsp.stat(real).catch(() => null) : null;
      if (st?.isFile()) {
        file = real;
        stat = st;
        encoding = name;
        break;
      }
    }
    res.writeHead(200, {
      'Content-Type': type,
      'Content-Length': stat.size,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Accept-Encoding',
      ...(encoding ? { 'Content-Encoding': encoding } : {}),
    });
    if (req.method === 'HEAD') return res.end();
    const stream = fs.createReadStream(file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }

  const requests = []; // every request's path and query, in order (for browsers Playwright does not drive)
  const server = http.createServer((req, res) => {
    requests.push(req.url);
    handle(req, res).catch(() => {
      if (!res.headersSent) plain(res, 500, 'Internal Server Error\n');
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const addr = server.address();
  const hostForUrl = addr.family === 'IPv6' || addr.family === 6 ? `[${addr.address}]` : addr.address;
  const origin = `http://${hostForUrl}:${addr.port}`;
  return {
    root: rootReal,
    prefix: pfx,
    port: addr.port,
    origin,
    url: origin + pfx,
    requests,
    async close() {
      const closed = new Promise((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      sockets.clear();
      await closed;
    },
  };
}

function parseArgs(argv) {
  const opts = { root: 'dist', port: 8000, host: '127.0.0.1', prefix: '/' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      if (i + 1 >= argv.length) throw new Error(`missing value for ${name}`);
      return argv[++i];
    };
    switch (name) {
      case '--root': opts.root = value(); break;
      case '--port': opts.port = Number(value()); break;
      case '--host': opts.host = value(); break;
      case '--prefix': opts.prefix = value(); break;
      case '-h':
      case '--help':
        opts.help = true;
        break;
      default:
        throw new Error(`unknown argument: ${arg}`);
    }
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw new Error(`bad --port: ${opts.port}`);
  return opts;
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`static-server: ${err.message}`);
    process.exit(2);
  }
  if (opts.help) {
    console.log('usage: node tests/e2e/support/static-server.mjs --root DIR [--port 8000] [--host 127.0.0.1] [--prefix /]');
    return;
  }
  if (!fs.existsSync(opts.root) || !fs.statSync(opts.root).isDirectory()) {
    console.error(`static-server: root directory not found: ${opts.root} (build the app first: scripts/build.sh)`);
    process.exit(1);
  }
  const web = await startStatic(opts);
  console.log(`Serving ${web.root} at ${web.url}`);
  const stop = async () => {
    await web.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

const invokedDirectly = process.argv[1] && pathToFileURL(path.resolve(process.argv[1])).href === import.meta.url;
if (invokedDirectly) {
  main().catch((err) => {
    console.error(`static-server: ${err.message}`);
    process.exit(1);
  });
}
