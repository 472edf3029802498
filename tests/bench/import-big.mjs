// Benchmark: a heavy ChatGPT user's export — --convs conversations (2 000) of realistic nodes
// (questions and answers of a few KB of text with ChatGPT's metadata, a hidden system node, a
// regenerated answer now and then), about --mb MB (200) as conversations.json — picked in the
// release build's Import dialog (dist/, served on 127.0.0.1): the time from picking the file to
// the preview on screen, the longest main-thread task meanwhile, and the JS heap of the page at
// its highest (performance.memory, sampled every 100 ms; the wasm modules' memories are not in
// it). The baseline, in a fresh page of the same browser: the same file read with File.text()
// and JSON.parse — what any page must pay to hold it. Prints numbers; asserts nothing.
// `--zip` picks the same conversations as ChatGPT's export .zip instead: split over --parts (2)
// conversations-NNN.json files, deflated, with an image beside them (the baseline stays the JSON).
// usage: node tests/bench/import-big.mjs [--dist dist] [--convs 2000] [--mb 200] [--runs 1] [--zip [--parts 2]]
import { join } from 'node:path';
import { mkdtempSync, openSync, writeSync, closeSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { writeZip } from '../e2e/support/zip.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const root = new URL('../..', import.meta.url).pathname;
const dist = opt('dist', join(root, 'dist'));
const convs = Number(opt('convs', '2000'));
const mb = Number(opt('mb', '200'));
const runs = Number(opt('runs', '1'));
const zip = args.includes('--zip');
const parts = Number(opt('parts', '2'));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };

const words = 'the of and to in is that for it with as was on be by this are or from at which but have an not they you can more one all their will there about when also use would these been data how model time other first most new into some could two then than like any only over such its after used make well way because people work each may between where very'.split(' ');
let seed = 7;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const text = (chars) => { const out = []; let n = 0; while (n < chars) { const w = words[rnd(words.length)]; out.push(w); n += w.length + 1; } return out.join(' '); };

// One conversation of about `bytes` bytes: a hidden system root, then question/answer pairs.
function conversation(i, bytes) {
  const t0 = 1700000000 + i * 3600;
  const nodes = {};
  const node = (id, parent, role, body, extra = {}) => {
    nodes[id] = {
      id, parent, children: [],
      message: body === null ? null : {
        id, author: { role, name: null, metadata: {} }, create_time: t0 + Object.keys(nodes).length, update_time: null,
        content: { content_type: 'text', parts: [body] }, status: 'finished_successfully', end_turn: role === 'assistant' ? true : null,
        weight: 1, metadata: { model_slug: 'gpt-4o', default_model_slug: 'gpt-4o', request_id: `req-${i}-${id}`, message_type: null, timestamp_: 'absolute', finish_details: role === 'assistant' ? { type: 'stop', stop_tokens: [200002] } : undefined, citations: [], content_references: [], ...extra },
        recipient: 'all', channel: null,
      },
    };
    if (parent) nodes[parent].children.push(id);
  };
  node('client-root', null, 'system', null);
  node('sys', 'client-root', 'system', '', { is_visually_hidden_from_conversation: true });
  let parent = 'sys';
  let k = 0;
  let size = 600;
  while (size < bytes) {
    const q = text(200 + rnd(400));
    const a = text(1500 + rnd(2500));
    node(`q${k}`, parent, 'user', q);
    node(`a${k}`, `q${k}`, 'assistant', a);
    if (rnd(10) === 0) node(`a${k}b`, `q${k}`, 'assistant', text(800)); // a regenerated answer
    parent = `a${k}`;
    size += q.length + a.length + 1300;
    k++;
  }
  return JSON.stringify({ title: `Conversation ${i + 1}: ${text(30)}`, create_time: t0, update_time: t0 + 999, mapping: nodes, moderation_results: [], current_node: parent, plugin_ids: null, conversation_id: `conv-${i}`, conversation_template_id: null, gizmo_id: null, is_archived: false, safe_urls: [], default_model_slug: 'gpt-4o', id: `conv-${i}` });
}

const dir = mkdtempSync(join(tmpdir(), 'satori-import-big-'));
const file = join(dir, 'conversations.json');
const fd = openSync(file, 'w');
const shards = Array.from({ length: parts }, () => []);
writeSync(fd, '[');
for (let i = 0; i < convs; i++) {
  const c = conversation(i, (mb * 1e6) / convs);
  writeSync(fd, (i ? ',' : '') + c);
  if (zip) shards[Math.floor((i * parts) / convs)].push(c);
}
writeSync(fd, ']');
closeSync(fd);
const size = statSync(file).size;
let picked = file;
if (zip) {
  picked = join(dir, 'chatgpt-export.zip');
  const entries = shards.map((list, n) => ({ name: `Export/conversations-${String(n).padStart(3, '0')}.json`, data: `[${list.join(',')}]` }));
  shards.length = 0;
  entries.push({ name: 'Export/file-abc-photo.png', data: Buffer.alloc(200_000, 7), store: true });
  const zipped = writeZip(picked, entries);
  console.log(`# Import of a ${convs}-conversation ChatGPT export as a .zip of ${parts} parts (${(size / 1e6).toFixed(1)} MB unzipped, ${(zipped / 1e6).toFixed(1)} MB zipped) — ${new Date().toISOString()}`);
} else {
  console.log(`# Import of a ${convs}-conversation ChatGPT export (${(size / 1e6).toFixed(1)} MB) — ${new Date().toISOString()}`);
}

const web = await startStatic({ root: dist, prefix: '/' });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--enable-precise-memory-info'],
});
const watch = () => {
  window.__longest = 0;
  window.__heap = 0;
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longest = Math.max(window.__longest, e.duration); })
    .observe({ type: 'longtask', buffered: false });
  setInterval(() => { window.__heap = Math.max(window.__heap, performance.memory?.usedJSHeapSize ?? 0); }, 100);
};
const result = { preview: [], longest: [], heap: [], parse: [], parseHeap: [], failed: [] };
try {
  for (let r = 0; r < runs; r++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(web.url);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.evaluate(watch);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Import chats' });
    await dialog.getByLabel('Import file').waitFor({ state: 'attached' });
    const start = Date.now();
    await dialog.getByLabel('Import file').setInputFiles(picked);
    const ready = dialog.getByRole('button', { name: `Import ${convs} chats` });
    const refused = dialog.getByRole('alert').filter({ hasText: /cannot be imported/ });
    await ready.or(refused).waitFor({ timeout: 900_000 });
    if (await refused.isVisible()) result.failed.push(await refused.innerText());
    else result.preview.push(Date.now() - start);
    result.longest.push(await page.evaluate(() => window.__longest));
    result.heap.push(await page.evaluate(() => window.__heap));
    await ctx.close();
    // The baseline: File.text() and JSON.parse of the same file, in a fresh page.
    const base = await browser.newContext();
    const bp = await base.newPage();
    await bp.goto(web.url);
    await bp.getByRole('textbox', { name: 'Message' }).waitFor();
    await bp.evaluate(watch);
    await bp.setContent('<input type="file" id="f">');
    await bp.evaluate(watch);
    await bp.locator('#f').setInputFiles(file);
    result.parse.push(await bp.evaluate(async () => {
      const s = performance.now();
      const v = JSON.parse(await document.getElementById('f').files[0].text());
      const ms = performance.now() - s;
      window.__keep = v;
      await new Promise((r) => setTimeout(r, 300));
      return ms;
    }));
    result.parseHeap.push(await bp.evaluate(() => window.__heap));
    await base.close();
  }
} finally {
  await browser.close();
  await web.close();
  rmSync(dir, { recursive: true, force: true });
}
const MB = (b) => `${(b / 1e6).toFixed(0)} MB`;
if (result.failed.length) console.log(`refused: ${result.failed.join(' | ')}`);
if (result.preview.length) console.log(`file picked → preview on screen: median ${median(result.preview)} ms (${result.preview.join(', ')})`);
console.log(`longest main-thread task meanwhile: median ${median(result.longest).toFixed(0)} ms`);
console.log(`page's JS heap at its highest: median ${MB(median(result.heap))}`);
console.log(`baseline, File.text() + JSON.parse of the same file in a page: median ${median(result.parse).toFixed(0)} ms, JS heap ${MB(median(result.parseHeap))}`);
