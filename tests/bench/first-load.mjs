// Benchmark: what the first page load of the built app downloads (raw, gzip -9, brotli) — split
// into what is fetched before the composer is usable (the first load proper) and what is fetched
// right after (the markdown renderer module) — and how long it takes from navigation start until
// the composer ("Message") is visible and enabled, in
// headless Chromium with a fresh profile per run. A baseline page (plain HTML with a textarea,
// served by the same server, measured in the same browser) is run alongside, so the ratio is
// comparable across machines. Prints numbers; asserts nothing.
// `--locale zh-CN` measures the page as a browser in that language opens it (the translator and
// the first part of the interface table before the app draws, the rest after); the on-demand
// figures below are taken in English either way.
// usage: node tests/bench/first-load.mjs [--dist dist] [--runs 7] [--locale en-US]
import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const dist = opt('dist', 'dist');
const runs = Number(opt('runs', '7'));
const locale = opt('locale', 'en-US');
const BUDGET_KB = 250;

const kb = (n) => (n / 1024).toFixed(1);
function sizes(buf) {
  return {
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    brotli: brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

// 1. Sizes of the files the app fetches, split at the moment the composer becomes usable.
function table(title, files) {
  console.log(`\n## ${title}`);
  console.log('file'.padEnd(48), 'raw KB'.padStart(9), 'gzip KB'.padStart(9), 'brotli KB'.padStart(10));
  const total = { raw: 0, gzip: 0, brotli: 0 };
  for (const f of files) {
    const s = sizes(readFileSync(join(dist, f)));
    for (const k of Object.keys(total)) total[k] += s[k];
    console.log(f.padEnd(48), kb(s.raw).padStart(9), kb(s.gzip).padStart(9), kb(s.brotli).padStart(10));
  }
  console.log('TOTAL'.padEnd(48), kb(total.raw).padStart(9), kb(total.gzip).padStart(9), kb(total.brotli).padStart(10));
  return total;
}
console.log(`# Satori first load — ${new Date().toISOString()} — browser language ${locale}`);

// 2. Time to an interactive composer, app vs baseline.
const baseDir = mkdtempSync(join(tmpdir(), 'satori-baseline-'));
writeFileSync(join(baseDir, 'index.html'),
  '<!doctype html><html><head><meta charset="utf-8"><title>baseline</title></head><body>' +
  '<label for="m">Message</label><textarea id="m"></textarea><button>Send</button></body></html>');
const app = await startStatic({ root: dist, prefix: '/' });
const base = await startStatic({ root: baseDir, prefix: '/' });
const browser = await chromium.launch({
  executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'],
});
// Records performance.now() the first time a visible, enabled "Message" textarea exists.
const probe = () => {
  const check = () => {
    const t = document.querySelector('textarea');
    if (t && !t.disabled && t.getBoundingClientRect().height > 0 && window.__ready === undefined) {
      window.__ready = performance.now();
      return true;
    }
    return false;
  };
  new MutationObserver(() => check()).observe(document, { childList: true, subtree: true });
  document.addEventListener('DOMContentLoaded', check);
};
async function measure(url) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale });
  const page = await ctx.newPage();
  await page.addInitScript(probe);
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.__ready !== undefined, null, { timeout: 30000 });
  const ms = await page.evaluate(() => window.__ready);
  await ctx.close();
  return ms;
}
// Which files were requested before the composer became usable (resource timing start times
// against the probe's timestamp), and which after.
async function splitRequests(url) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale });
  const page = await ctx.newPage();
  await page.addInitScript(probe);
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => window.__ready !== undefined, null, { timeout: 30000 });
  await page.waitForLoadState('networkidle');
  const { ready, entries } = await page.evaluate(() => ({
    ready: window.__ready,
    entries: performance.getEntriesByType('resource').map((e) => ({ name: e.name, start: e.startTime })),
  }));
  await ctx.close();
  const rel = (u) => decodeURIComponent(new URL(u).pathname.replace(/^\//, ''));
  return {
    critical: ['index.html', ...entries.filter((e) => e.start <= ready).map((e) => rel(e.name))],
    deferred: entries.filter((e) => e.start > ready).map((e) => rel(e.name)),
  };
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const split = await splitRequests(app.url);
const first = table('First load: fetched before the composer is usable', split.critical);
table('Fetched right after (not needed to start typing)', split.deferred);
console.log(`\nbudget ${BUDGET_KB} KB compressed for the first load: gzip ${kb(first.gzip)} KB ${first.gzip / 1024 <= BUDGET_KB ? 'within' : 'OVER'}, brotli ${kb(first.brotli)} KB ${first.brotli / 1024 <= BUDGET_KB ? 'within' : 'OVER'}`);
// 3. On demand: opening "Prompts" fetches the dialogs module (template engine, YAML reader,
// dialogs). Time from the click to the dialog being visible, fresh page each run.
async function openPrompts(url) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  await page.goto(url, { waitUntil: 'load' });
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await page.waitForLoadState('networkidle');
  const before = await page.evaluate(() => performance.getEntriesByType('resource').length);
  const t0 = await page.evaluate(() => performance.now());
  await page.getByRole('button', { name: 'Prompts', exact: true }).click();
  await page.getByRole('dialog', { name: 'Prompts' }).waitFor();
  const { t1, files } = await page.evaluate((n) => ({
    t1: performance.now(),
    files: performance.getEntriesByType('resource').slice(n).map((e) => e.name),
  }), before);
  await ctx.close();
  const rel = (u) => decodeURIComponent(new URL(u).pathname.replace(/^\//, ''));
  return { ms: t1 - t0, files: files.map(rel) };
}
const promptRuns = [];
let promptFiles = [];
for (let i = 0; i < 5; i++) {
  const r = await openPrompts(app.url);
  promptRuns.push(r.ms);
  promptFiles = r.files;
}
table('On demand: fetched when "Prompts" is opened', promptFiles);
console.log(`click "Prompts" → dialog visible (module fetched, compiled, mounted): median ${median(promptRuns).toFixed(0)} ms (min ${Math.min(...promptRuns).toFixed(0)}, max ${Math.max(...promptRuns).toFixed(0)}), 5 fresh pages`);

// 4. On demand: typing the first character fetches the turns module (the pipeline and its
// counting), so a send does not wait for it.
async function typeFirst(url) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  await page.goto(url, { waitUntil: 'load' });
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.waitFor();
  await page.waitForLoadState('networkidle');
  const before = await page.evaluate(() => performance.getEntriesByType('resource').length);
  await box.pressSequentially('h');
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(300);
  const files = await page.evaluate((n) => performance.getEntriesByType('resource').slice(n).map((e) => e.name), before);
  await ctx.close();
  return files.map((u) => decodeURIComponent(new URL(u).pathname.replace(/^\//, '')));
}
table('On demand: fetched when the user starts typing', await typeFirst(app.url));

const appTimes = [], baseTimes = [];
await measure(app.url); // warm the server and the browser process, not the page cache
for (let i = 0; i < runs; i++) {
  baseTimes.push(await measure(base.url));
  appTimes.push(await measure(app.url));
}
await browser.close();
await app.close();
await base.close();
const f = (xs) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
console.log(`\n## Navigation start → composer visible and enabled (${runs} fresh-profile runs, loopback)`);
console.log(`Satori:   ${f(appTimes)}`);
console.log(`baseline: ${f(baseTimes)}  (static HTML textarea, same server and browser)`);
console.log(`ratio Satori / baseline: ${(median(appTimes) / median(baseTimes)).toFixed(1)}×`);
