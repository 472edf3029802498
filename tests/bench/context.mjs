// Benchmark: the context pipeline in the built app, in headless Chromium, on chats of 100, 1 000
// and 10 000 messages (about 80 characters each, no summary, counts cached after the first build). Each chat is
// put into localStorage, the app opens it, and five messages are sent to the scripted fake
// server; the app records every build as a User Timing measure ("satori:context-build"), and
// this prints the median of builds 2–5 (the first one counts the history), with the cost per
// 1 000 messages. Prints numbers; asserts nothing.
// usage: node tests/bench/context.mjs [--dist dist] [--sizes 100,1000,10000]
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { startFakeLlm } from '../e2e/support/fake-llm.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const dist = opt('dist', 'dist');
const sizes = opt('sizes', '100,1000,10000').split(',').map(Number);
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

/** Stored records for one chat of `n` messages (alternating user / assistant, ~80 characters). */
function records(n, baseUrl) {
  const words = ['river', 'stone', 'maple', 'cloud', 'lantern', 'copper', 'orbit', 'meadow'];
  const messages = [{ id: 'sys', role: 'system', content: 'You are a helpful assistant.', status: 'complete', created_at: 1 }];
  for (let i = 0; i < n; i++) {
    const text = Array.from({ length: 10 }, (_, k) => words[(i * 7 + k) % words.length]).join(' ');
    messages.push({
      id: `m${i}`,
      parent: i === 0 ? 'sys' : `m${i - 1}`,
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `${i}: ${text}`,
      status: 'complete',
      created_at: 2 + i,
    });
  }
  const session = { v: 1, id: 'bench', title: `Bench ${n}`, role: 'assistant', created_at: 1, updated_at: 2 + n, messages, leaf: `m${n - 1}` };
  return {
    'satori.index': JSON.stringify({ v: 1, sessions: [{ id: 'bench', title: `Bench ${n}`, updated_at: 2 + n }], active: 'bench' }),
    'satori.session.bench': JSON.stringify(session),
    'satori.settings': JSON.stringify({ v: 1, provider: 'custom', base_url: baseUrl, model: 'bench-model', stall_seconds: 60, windows: { 'bench-model': 8192 } }),
  };
}

const web = await startStatic({ root: dist, prefix: '/' });
const fake = await startFakeLlm();
fake.setDefault({ chunks: ['Fine.'] });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
const rows = [];
try {
  for (const n of sizes) {
    const ctx = await browser.newContext();
    const seed = records(n, fake.baseUrl);
    await ctx.addInitScript((items) => {
      if (!sessionStorage.getItem('seeded')) {
        for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v);
        sessionStorage.setItem('seeded', '1');
      }
    }, seed);
    const page = await ctx.newPage();
    await page.goto(web.url);
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.waitFor({ timeout: 300_000 });
    for (let k = 0; k < 5; k++) {
      await box.fill(`Bench message ${k}`);
      await box.press('Enter');
      await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: 300_000 });
      await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 300_000 });
    }
    const builds = await page.evaluate(() => performance.getEntriesByName('satori:context-build').map((e) => e.duration));
    const asks = await page.evaluate(() => performance.getEntriesByName('satori:context-ask').map((e) => e.duration));
    const later = builds.slice(1);
    const ms = median(later);
    // BENCH_DEBUG=1 prints every exchange and build.
    if (process.env.BENCH_DEBUG) console.log(n, 'asks', asks.map((a) => a.toFixed(1)).join(' '), 'builds', builds.map((a) => a.toFixed(2)).join(' '));
    rows.push({ n, builds: builds.length, first: builds[0], ms, perK: (ms / n) * 1000, ask: median(asks.slice(1)) });
    await ctx.close();
  }
} finally {
  await browser.close();
  await fake.close();
  await web.close();
}
console.log('\n## Context pipeline in Chromium (median of builds 2–5; timer resolution 0.1 ms)');
console.log('messages'.padStart(9), 'builds'.padStart(7), 'first ms'.padStart(9), 'median ms'.padStart(10), 'ms / 1 000 msgs'.padStart(16), 'ask ms'.padStart(8));
for (const r of rows) {
  console.log(String(r.n).padStart(9), String(r.builds).padStart(7), r.first.toFixed(2).padStart(9), r.ms.toFixed(2).padStart(10), r.perK.toFixed(3).padStart(16), r.ask.toFixed(2).padStart(8));
}
console.log('ask ms: the whole exchange with the turns module per send (history to JSON, the build, the answer back), median of sends 2–5');
