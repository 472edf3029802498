// A tiny HTTP server for the browser-side adapter tests (tests/web.rs). Fixed routes, CORS on.
// Prints "listening http://127.0.0.1:PORT" on stdout; stops on SIGTERM or stdin close.
import { createServer } from 'node:http';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sockets = new Set();

// The `/split` stream and where it is cut: inside a line, inside the 2-byte `é`, twice inside
// the 4-byte emoji, between CR and LF, and inside the final blank line. tests/web.rs expects
// exactly these pieces as separate reads (a pause follows each write so none are merged).
const SPLIT_BYTES = Buffer.from('data: {"choices":[{"delta":{"content":"hé 🌍"}}]}\r\n\r\ndata: [DONE]\r\n\r\n');
const at = (text, offset) => SPLIT_BYTES.indexOf(text) + offset;
const SPLIT_CUTS = [7, at('é', 1), at('🌍', 1), at('🌍', 3), at('\r\n', 1), SPLIT_BYTES.length - 3];

const routes = {
  '/split': async (res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    let prev = 0;
    for (const cut of [...SPLIT_CUTS, SPLIT_BYTES.length]) {
      res.write(SPLIT_BYTES.subarray(prev, cut));
      prev = cut;
      await sleep(100);
    }
    res.end();
  },
  '/stall': async (res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write('data: {"choices":[{"delta":{"content":"x"}}]}\n\n');
    // then nothing, until the client gives up
  },
  '/slow': async (res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    for (let i = 0; i < 50 && !res.destroyed; i++) {
      res.write(`data: {"choices":[{"delta":{"content":"${i} "}}]}\n\n`);
      await sleep(100);
    }
    res.end();
  },
  '/cut': async (res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write('data: {"choices":[{"delta":{"content":"par"}}]}\n\n');
    await sleep(50);
    res.socket.destroy();
  },
  '/401': async (res) => {
    res.writeHead(401, { 'Content-Type': 'application/json' });
    res.end('{"error":{"message":"Incorrect API key provided"}}');
  },
  '/429': async (res) => {
    res.writeHead(429, { 'Content-Type': 'text/plain', 'Retry-After': '7' });
    res.end('slow down');
  },
  '/html': async (res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<html>captive portal</html>');
  },
  '/models': async (res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"object":"list","data":[{"id":"b"},{"id":"a"}]}');
  },
};

const server = createServer(async (req, res) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type');
  res.setHeader('Access-Control-Expose-Headers', 'Retry-After');
  if (req.method === 'OPTIONS') { res.writeHead(204); res.end(); return; }
  req.resume();
  const route = routes[new URL(req.url, 'http://x').pathname];
  if (!route) { res.writeHead(404); res.end('no such route'); return; }
  await route(res);
});
server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${server.address().port}`);
});
const stop = () => { for (const s of sockets) s.destroy(); server.close(() => process.exit(0)); };
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
