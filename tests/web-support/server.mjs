// A tiny HTTP server for the browser-side adapter tests (tests/web.rs). Fixed routes, CORS on.
// Prints "listening http://127.0.0.1:PORT" on stdout; stops on SIGTERM or stdin close.
import { createServer } from 'node:http';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sockets = new Set();

const routes = {
  // A stream whose chunks split a line, a 4-byte emoji and a CRLF pair.
  '/split': async (res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    const bytes = Buffer.from('data: {"choices":[{"delta":{"content":"hé 🌍"}}]}\r\n\r\ndata: [DONE]\r\n\r\n');
    const cuts = [7, 30, 31, 33, bytes.indexOf('\r\n') + 1, bytes.length - 3];
    let prev = 0;
    for (const cut of [...new Set(cuts)].sort((a, b) => a - b).concat([bytes.length])) {
      res.write(bytes.subarray(prev, cut));
      prev = cut;
      await sleep(30);
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
