// Benchmark: a crafted ChatGPT export whose one conversation is a chain of --nodes hidden nodes
// (each the parent of the next, a visible question at the top and an answer at the bottom) —
// the shape that froze the page when the importer's walk was quadratic. The release build
// (dist/, served on 127.0.0.1) reads it in the Import dialog: the time from picking the file to
// the preview on screen, and the longest task meanwhile. The baseline, in the same page: a
// JSON.parse of the same text. Prints numbers; asserts nothing.
// usage: node tests/bench/import-chain.mjs [--dist dist] [--nodes 300000] [--runs 3]
import { join } from 'node:path';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const root = new URL('../..', import.meta.url).pathname;
const dist = opt('dist', join(root, 'dist'));
const nodes = Number(opt('nodes', '300000'));
const runs = Number(opt('runs', '3'));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };

function chain(n) {
  // Empty nodes (no message), each the parent of the next: about 35 bytes each, so 300 000 of
  // them make a file of about 11 MB, within the 50 MB Satori reads.
  const parts = [];
  parts.push('"root":{"parent":null,"children":["q"]}');
  parts.push('"q":{"parent":"root","children":["h0"],"message":{"id":"q","author":{"role":"user"},"create_time":1764581400,"content":{"content_type":"text","parts":["Hello?"]}}}');
  for (let i = 0; i < n; i++) parts.push(`"h${i}":{"parent":"${i ? `h${i - 1}` : 'q'}","children":["${i + 1 < n ? `h${i + 1}` : 'a'}"]}`);
  parts.push(`"a":{"parent":"h${n - 1}","children":[],"message":{"id":"a","author":{"role":"assistant"},"create_time":1764581401,"content":{"content_type":"text","parts":["Hi."]}}}`);
  return `[{"title":"Chain","conversation_id":"chain-1","create_time":1764581400,"current_node":"a","mapping":{${parts.join(',')}}}]`;
}

const text = chain(nodes);
console.log(`# Import of a ${nodes}-node hidden chain (${(text.length / 1e6).toFixed(1)} MB) — ${new Date().toISOString()}`);
// Picked from disk: a buffer handed to setInputFiles is rebuilt in the page by Playwright, a
// long task of its own (2.3 s for this file) that is no part of Satori's import.
const dir = mkdtempSync(join(tmpdir(), 'satori-import-chain-'));
const file = join(dir, 'conversations.json');
writeFileSync(file, text);
const web = await startStatic({ root: dist, prefix: '/' });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
const preview = [];
const longest = [];
const parse = [];
try {
  for (let r = 0; r < runs; r++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(web.url);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.evaluate(() => {
      window.__longest = 0;
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longest = Math.max(window.__longest, e.duration); })
        .observe({ type: 'longtask', buffered: false });
    });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Import chats' });
    await dialog.getByLabel('Import file').waitFor({ state: 'attached' });
    const start = Date.now();
    await dialog.getByLabel('Import file').setInputFiles(file);
    await dialog.getByRole('button', { name: 'Import 1 chat' }).waitFor({ timeout: 600_000 });
    preview.push(Date.now() - start);
    longest.push(await page.evaluate(() => window.__longest));
    parse.push(await page.evaluate(async (t) => { const s = performance.now(); JSON.parse(t); return performance.now() - s; }, text));
    await ctx.close();
  }
} finally {
  await browser.close();
  await web.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`file picked → preview on screen: median ${median(preview)} ms (${preview.join(', ')})`);
console.log(`longest task meanwhile: median ${median(longest).toFixed(0)} ms`);
console.log(`baseline, JSON.parse of the same text in the page: median ${median(parse).toFixed(0)} ms`);
