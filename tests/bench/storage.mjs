// Benchmark: how much more history the same browser storage holds with packed chat records
// (crates/core/src/packed.rs) than with the JSON records they replace — measured by filling a real
// localStorage in headless Chromium until it refuses, once with copies of the JSON record and
// once with copies of each packed form: z1 (zlib by the browser's CompressionStream, 15 bits to a
// character) and z2 (bzip2 in the built pack worker, dist/pack-*/worker.js, 63 bits to 4
// characters) — and what packing one chat costs (z1: deflate, then inflate to verify; z2: the
// worker's compress and check, as the app asks for it). Chats of 40 messages are cut from real
// text: English prose (ASCII only, and with typographic quotes and dashes, which make Chromium
// store the whole string as UTF-16), Chinese prose, Rust code. The JSON record is the baseline,
// in the same run. Prints numbers; asserts nothing.
// usage: node tests/bench/storage.mjs [--dist dist] [--runs 20]   (after bash scripts/build.sh)
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const runs = Number(opt('runs', '20'));
const dist = opt('dist', 'dist');
const root = new URL('../..', import.meta.url).pathname;

// Real text: the documentation (typographic quotes), the GPL (ASCII), vim's Chinese tutor, Satori's code.
const sources = [
  ['English, ASCII only', '/usr/share/common-licenses/GPL-3'],
  ['English, typographic', 'docs'],
  ['Chinese', '/usr/share/vim/vim90/tutor/tutor.zh_cn.utf-8'],
  ['Rust code', null],
];
const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort()
  .map((f) => readFileSync(join(root, 'docs', f), 'utf8')).join('\n');
const code = ['session.rs', 'markdown.rs', 'search.rs']
  .map((f) => readFileSync(join(root, 'crates/core/src', f), 'utf8')).join('\n');

/** A chat record as Satori writes it: 40 messages cut one after another from `text`. */
function chat(id, text) {
  const messages = [{ id: `${id}-sys`, role: 'system', content: 'Be brief.', status: 'complete', created_at: 1764000000000 }];
  let at = 0;
  let parent = `${id}-sys`;
  for (let i = 0; i < 40 && at < text.length; i++) {
    const user = i % 2 === 0;
    const n = user ? 300 : 2000;
    const m = { id: `${id}-${i}-${Math.random().toString(36).slice(2, 10)}`, parent, role: user ? 'user' : 'assistant', content: text.slice(at, at + n), status: 'complete', created_at: 1764000000000 + i * 60000 };
    if (!user) Object.assign(m, { finish_reason: 'stop', model: 'gpt-4o-mini' });
    at += n;
    parent = m.id;
    messages.push(m);
  }
  return JSON.stringify({ v: 1, id, title: `Bench ${id}`, role: '', created_at: 1764000000000, updated_at: 1764000000000 + 40 * 60000, messages, leaf: parent });
}

const records = [];
for (const [name, file] of sources) {
  const text = file === null ? code : file === 'docs' ? docs : existsSync(file) ? readFileSync(file, 'utf8') : null;
  if (text === null) { console.log(`(${name}: ${file} is not on this machine, skipped)`); continue; }
  records.push([name, chat(name.replace(/\W+/g, '-').toLowerCase(), text)]);
}

const html = readFileSync(join(dist, 'index.html'), 'utf8');
const worker = /<meta name="satori-module:pack" content="\.\/([^"]+)"/.exec(html)?.[1];
if (!worker) throw new Error(`${dist}/index.html names no pack worker: build first (bash scripts/build.sh)`);
const server = await startStatic({ root: dist, prefix: '/' });
const browser = await chromium.launch({
  executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
console.log(`# Satori packed chat records — ${new Date().toISOString()}, ${runs} runs`);
console.log('chat'.padEnd(22), 'JSON chars'.padStart(11), 'z1'.padStart(7), 'z2'.padStart(7), 'fit JSON'.padStart(9), 'fit z1'.padStart(7), 'fit z2'.padStart(7),
  'z1 ×'.padStart(6), 'z2 ×'.padStart(6), 'z1 ms'.padStart(7), 'z2 ms'.padStart(7), 'save ms'.padStart(8));
for (const [name, json] of records) {
  const page = await browser.newPage();
  // A page of the same origin that is not the app (the app would write storage of its own).
  await page.goto(`${server.url}manifest.webmanifest`);
  const r = await page.evaluate(async ({ json, runs, worker }) => {
    async function deflate(text) {
      const s = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate'));
      return new Uint8Array(await new Response(s).arrayBuffer());
    }
    async function inflate(bytes) {
      const s = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
      return new Response(s).text();
    }
    function pack(bytes) {
      let out = '';
      let acc = 0;
      let bits = 0;
      for (const b of bytes) {
        acc = (acc << 8) | b;
        bits += 8;
        if (bits >= 15) { bits -= 15; out += String.fromCharCode(0x20 + ((acc >> bits) & 0x7fff)); acc &= (1 << bits) - 1; }
      }
      if (bits > 0) out += String.fromCharCode(0x20 + ((acc << (15 - bits)) & 0x7fff));
      return out;
    }
    const chat = JSON.parse(json);
    const times = [];
    let record = '';
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const bytes = await deflate(json);
      if ((await inflate(bytes)) !== json) throw new Error('round trip');
      const entry = JSON.stringify({ id: chat.id, title: chat.title, updated_at: chat.updated_at });
      record = `z1:${bytes.length},${new TextEncoder().encode(json).length}:${entry}\n${pack(bytes)}`;
      times.push(performance.now() - t0);
    }
    // z2: the built worker, asked as src/adapters/compression.js asks it.
    const w = new Worker(`/${worker}`, { type: 'module' });
    let next = 0;
    const ask = (op, args) => new Promise((resolve, reject) => {
      const id = ++next;
      w.onmessage = ({ data }) => (data.id === id && ('error' in data ? reject(new Error(data.error)) : resolve(data.value)));
      w.onerror = (e) => reject(new Error(e.message));
      w.postMessage({ id, op, args });
    });
    await ask('pack', ['{}']); // started and compiled before timing
    const bzTimes = [];
    let bz = '';
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const [body, n] = await ask('pack', [json]);
      const entry = JSON.stringify({ id: chat.id, title: chat.title, updated_at: chat.updated_at });
      bz = `z2:${n},${new TextEncoder().encode(json).length}:${entry}\n${body}`;
      bzTimes.push(performance.now() - t0);
      if (i === 0 && (await ask('unpack', [body, n, new TextEncoder().encode(json).length])) !== json) throw new Error('z2 round trip');
    }
    w.terminate();
    const saves = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      localStorage.setItem('satori.bench.save', json);
      saves.push(performance.now() - t0);
    }
    localStorage.clear();
    function fill(value) {
      localStorage.clear();
      let n = 0;
      try { for (;;) { localStorage.setItem(`satori.session.bench-${n}`, value); n++; } } catch { /* full */ }
      localStorage.clear();
      return n;
    }
    const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    return {
      json: json.length, z1: record.length, z2: bz.length, fitJson: fill(json), fitZ1: fill(record), fitZ2: fill(bz),
      z1ms: median(times), z2ms: median(bzTimes), save: median(saves),
    };
  }, { json, runs, worker });
  console.log(name.padEnd(22), String(r.json).padStart(11), String(r.z1).padStart(7), String(r.z2).padStart(7), String(r.fitJson).padStart(9),
    String(r.fitZ1).padStart(7), String(r.fitZ2).padStart(7), (r.fitZ1 / r.fitJson).toFixed(2).padStart(6), (r.fitZ2 / r.fitJson).toFixed(2).padStart(6),
    r.z1ms.toFixed(2).padStart(7), r.z2ms.toFixed(2).padStart(7), r.save.toFixed(2).padStart(8));
  await page.close();
}
await browser.close();
await server.close();
