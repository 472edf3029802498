// Runs target/llm-bench/index.html (made by tests/bench/llm.sh) in headless Chromium `runs`
// times, a fresh page each, and prints the medians.
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
const [dir, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 3);
const server = await startStatic({ root: dir, prefix: '/' });
const browser = await chromium.launch({
  executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'],
});
const results = [];
for (let i = 0; i < runs; i++) {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('crash', () => problems.push('the page crashed'));
  await page.goto(server.url);
  await page.waitForFunction(() => window.__result, null, { timeout: 600_000, polling: 500 })
    .catch((e) => { throw new Error(`${e.message}\n${problems.join('\n')}`); });
  results.push(await page.evaluate(() => window.__result));
  await page.close();
}
await browser.close();
await server.close();
const median = (k) => { const s = results.map((r) => r[k]).sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
console.log(`# Satori in-browser model — ${new Date().toISOString()}, ${runs} runs, headless Chromium, one thread`);
for (const k of ['load_ms', 'prompt_tokens', 'prefill_tok_s', 'first_token_ms', 'decode_tok_s', 'deep_fill_tok_s', 'deep_decode_tok_s', 'wasm_memory_mb']) {
  console.log(`${k.padEnd(20)} ${Number(median(k)).toFixed(1)}`);
}
console.log(`answer: ${JSON.stringify(results[0].answer)}`);
