// Benchmark: the in-browser model inside the built app (dist/), in headless Chromium, one thread,
// no cross-origin isolation, fresh profile per run, served on 127.0.0.1:
//   - the first answer of a fresh profile: Send → first token, with the model's download;
//   - after a reload (model in the Cache API, not in memory), in a new chat, a 20-token question
//     typed at about 15 characters a second (the app reads the stored model while the user
//     types): Send → first token (with Satori's system prompt), then decoding speed in the app
//     (the worker's text messages per second);
//   - main-thread long tasks (> 50 ms) from Send to the end of the answer.
// Prints medians; asserts nothing. usage: node tests/bench/inbrowser.mjs [--dist dist] [--runs 3]
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { CHROMIUM_ARGS, configure, sendMessage, waitIdle, lastAssistant, textOf, reload } from '../e2e/support/browser.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const runs = Number(opt('runs', '3'));
const server = await startStatic({ root: opt('dist', 'dist'), prefix: '/' });
const browser = await chromium.launch({ executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium', headless: false, args: CHROMIUM_ARGS });
const PROVIDER = 'In this browser (SmolLM2-135M)';
// About 20 tokens.
const QUESTION = 'In two sentences, what is the difference between a lake and a river?';

// Marks, in the page, the first text of the next answer and every long task.
async function watch(page) {
  await page.evaluate(() => {
    window.__bench = { first: null, long: [] };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__bench.long.push(e.duration);
    }).observe({ type: 'longtask' });
    const log = document.querySelector('[role="log"]');
    const replies = () => [...log.querySelectorAll('article[data-role="assistant"]')];
    const before = new Set(replies().map((a) => a.dataset.message));
    new MutationObserver(() => {
      const a = replies().at(-1);
      if (a && !before.has(a.dataset.message) && window.__bench.first === null && a.innerText.replace(/^Assistant\s*/, '').trim().length > 0) {
        window.__bench.first = performance.now();
      }
    }).observe(log, { childList: true, subtree: true, characterData: true });
  });
}

async function countTexts(page) {
  const worker = page.workers().find((w) => w.url().endsWith('/worker.js'));
  await worker.evaluate(() => {
    self.__times = [];
    const post = self.postMessage.bind(self);
    self.postMessage = (m, ...rest) => {
      if (m && m.type === 'text') self.__times.push(performance.now());
      return post(m, ...rest);
    };
  });
  return worker;
}

const results = [];
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(server.url);
  await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
  await configure(page, { provider: PROVIDER, maxTokens: 48, temperature: 0 });
  await watch(page);
  let t0 = await page.evaluate(() => performance.now());
  await sendMessage(page, 'Hello!', { timeout: 120_000 });
  await waitIdle(page, { timeout: 300_000 });
  const cold = await page.evaluate((t) => ({ first: window.__bench.first - t, long: window.__bench.long }), t0);

  // A reload (the model in the Cache API, not in memory), a new chat, a 20-token question: the
  // model loads from the cache and reads the system prompt and the question.
  // Typed at about 15 characters a second (the app reads the stored model meanwhile), then Send.
  await reload(page);
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  await watch(page);
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  await box.pressSequentially(QUESTION, { delay: 65 });
  t0 = await page.evaluate(() => performance.now());
  await box.press('Enter');
  await page.getByRole('button', { name: 'Stop', exact: true }).waitFor({ timeout: 60_000 });
  const worker = await countTexts(page).catch(() => null);
  await waitIdle(page, { timeout: 300_000 });
  const warm = await page.evaluate((t) => ({ first: window.__bench.first - t, long: window.__bench.long }), t0);
  // Decoding in the app: a second question to the loaded model, tokens counted in the worker.
  await watch(page);
  const w = worker ?? (await countTexts(page));
  await w.evaluate(() => { self.__times = []; });
  await sendMessage(page, 'Tell me a short story about a cat.', { timeout: 120_000 });
  await waitIdle(page, { timeout: 300_000 });
  const times = await w.evaluate(() => self.__times);
  const decode = times.length > 1 ? ((times.length - 1) * 1000) / (times.at(-1) - times[0]) : 0;
  const long = await page.evaluate(() => window.__bench.long);
  results.push({
    cold_first_token_ms: cold.first,
    cached_first_token_ms: warm.first,
    decode_tok_s: decode,
    tokens: times.length,
    long_tasks: cold.long.length + warm.long.length + long.length,
    longest_task_ms: Math.max(0, ...cold.long, ...warm.long, ...long),
    answer: await textOf(lastAssistant(page)),
  });
  await context.close();
}
await browser.close();
await server.close();
const median = (k) => { const s = results.map((r) => r[k]).sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
console.log(`# Satori in-browser model in the app — ${new Date().toISOString()}, ${runs} runs, headless Chromium, one thread`);
for (const k of ['cold_first_token_ms', 'cached_first_token_ms', 'decode_tok_s', 'tokens', 'long_tasks', 'longest_task_ms']) {
  console.log(`${k.padEnd(24)} ${Number(median(k)).toFixed(1)}`);
}
console.log(`answer: ${JSON.stringify(results[0].answer.slice(0, 200))}`);
