// Benchmark: what a long streamed reply costs the page while it arrives. The release build
// (dist/, served on 127.0.0.1) gets a reply of --tokens pieces (markdown: paragraphs, lists,
// code blocks; about 4 characters each) from the scripted fake server at --rate pieces a second,
// and a Chromium trace of the page's main thread is cut into tenths of the reply: the main-thread
// time per second in each tenth shows whether a piece costs more as the reply grows (it should
// not), and the long tasks (over 50 ms) while it streams are counted. Prints numbers; asserts
// nothing.
// usage: node tests/bench/stream.mjs [--dist dist] [--tokens 10000] [--rate 200]
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { startFakeLlm } from '../e2e/support/fake-llm.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const root = new URL('../..', import.meta.url).pathname;
const dist = opt('dist', join(root, 'dist'));
const tokens = Number(opt('tokens', '10000'));
const rate = Number(opt('rate', '200'));

/** `n` pieces of a markdown reply: paragraphs, a list, a code block, again and again. */
function pieces(n) {
  const words = 'the quick brown fox jumps over a lazy dog while streaming tokens arrive steadily'.split(' ');
  const out = [];
  let i = 0;
  while (out.length < n) {
    const k = out.length;
    const block = Math.floor(k / 120) % 4;
    const w = words[i++ % words.length];
    if (k % 120 === 0 && k > 0) out.push(block === 2 ? '\n\n```rust\n' : block === 3 ? '\n```\n\n' : '\n\n');
    else if (block === 1 && k % 12 === 0) out.push('\n- ');
    else if (block === 2 && k % 8 === 0) out.push(';\nlet x = ');
    else out.push(` ${w}`);
  }
  return out;
}

const web = await startStatic({ root: dist, prefix: '/' });
const fake = await startFakeLlm();
const browser = await chromium.launch({
  executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(web.url);
  await page.evaluate((base) => localStorage.setItem('satori.settings', JSON.stringify({ v: 1, provider: 'custom', base_url: base, model: 'fake-small', stall_seconds: 60 })), fake.baseUrl);
  await page.reload();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.waitFor();
  // The renderer and the turns module are there before the reply starts.
  await box.fill('x');
  await page.waitForTimeout(1500);
  await box.fill('');
  fake.enqueue({ chunks: pieces(tokens), delayMs: 1000 / rate });
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  await box.fill('Write a long answer.');
  await box.press('Enter');
  await page.locator('article[data-role="assistant"][data-status="streaming"]').waitFor();
  const t0 = Date.now();
  await page.locator('article[data-role="assistant"][data-status="complete"]').waitFor({ timeout: (tokens / rate) * 3000 + 60_000 });
  const seconds = (Date.now() - t0) / 1000;
  const trace = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
  // The renderer's main thread: where the page's tasks ran.
  const main = trace.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const tasks = trace.filter((e) => e.name === 'RunTask' && e.ph === 'X' && e.tid === main?.tid && e.pid === main?.pid);
  const start = Math.min(...tasks.map((t) => t.ts));
  const end = Math.max(...tasks.map((t) => t.ts + t.dur));
  const tenths = Array.from({ length: 10 }, () => 0);
  for (const t of tasks) tenths[Math.min(9, Math.floor(((t.ts - start) / (end - start)) * 10))] += t.dur / 1000;
  const span = (end - start) / 1e6 / 10;
  const long = tasks.filter((t) => t.dur > 50_000);
  console.log(`# Satori streaming a long reply — ${new Date().toISOString()}`);
  console.log(`${tokens} pieces at ${rate}/s: streamed in ${seconds.toFixed(1)} s, ${(await page.locator('article[data-role="assistant"] .content').last().innerText()).length} characters shown`);
  console.log(`main-thread ms per second, by tenth of the reply: ${tenths.map((ms) => (ms / span).toFixed(0)).join(' ')}`);
  console.log(`last tenth / first tenth: ${(tenths[9] / tenths[0]).toFixed(2)}×`);
  const where = long.map((t) => `${(t.dur / 1000).toFixed(0)} ms at ${(((t.ts - start) / (end - start)) * 100).toFixed(0)}%`);
  console.log(`long tasks (> 50 ms) while streaming: ${long.length}${long.length ? ` (${where.join(', ')})` : ''}`);
} finally {
  await browser.close();
  await fake.close();
  await web.close();
}
