// Benchmark: what formulas and diagrams cost a reply, in headless Chromium against the fake
// server. For each run, a fresh profile gets one reply of 60 paragraphs and the time from the
// reply's end (status "complete") to the last paragraph drawn is taken three ways, in the same
// run: plain text (the baseline), the same text with a formula in every paragraph (typeset by the
// math module, loaded on the first formula), and a mermaid flowchart (fetched, run in its
// sandboxed frame and drawn). Also the long tasks the page saw meanwhile. Prints numbers;
// asserts nothing.
// usage: node tests/bench/rendered.mjs [--dist dist] [--runs 3]
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { startFakeLlm } from '../e2e/support/fake-llm.mjs';
import { configure } from '../e2e/support/browser.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const runs = Number(opt('runs', '3'));
const web = await startStatic({ root: opt('dist', 'dist'), prefix: '/' });
const fake = await startFakeLlm();
const browser = await chromium.launch({
  executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const para = (i, math) => `Step ${i}: the area is ${math ? `$\\frac{${i}}{2} r^2 + \\sum_{k=1}^{${i}} k$` : `${i}/2 r^2 plus the sum of k up to ${i}`}.\n\n`;
const CASES = {
  plain: { reply: Array.from({ length: 60 }, (_, i) => para(i + 1, false)), done: () => true },
  formulas: {
    reply: Array.from({ length: 60 }, (_, i) => para(i + 1, true)),
    done: () => document.querySelectorAll('article[data-role="assistant"] .md-math[data-typeset]').length >= 60,
  },
  diagram: {
    reply: ['A flow:\n\n```mermaid\n', 'graph TD\n  A[Start] --> B{Ready?}\n  B -->|yes| C[Go]\n  B -->|no| A\n', '```\n'],
    done: () => !!document.querySelector('.code-diagram.drawn, .diagram-failed'),
  },
};
const results = Object.fromEntries(Object.keys(CASES).map((k) => [k, []]));
try {
  for (let run = 0; run < runs; run++) {
    for (const [name, c] of Object.entries(CASES)) {
      const ctx = await browser.newContext({ serviceWorkers: 'block' });
      const page = await ctx.newPage();
      await page.goto(web.url);
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.waitFor();
      await configure(page, { baseUrl: fake.baseUrl, model: 'fake-small', apiKey: 'sk-bench' });
      await page.waitForFunction(() => globalThis.__satoriModules?.ready.has('markdown'));
      await page.evaluate(() => {
        globalThis.__long = [];
        new PerformanceObserver((l) => globalThis.__long.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
      });
      fake.enqueue({ chunks: c.reply });
      await box.fill(`case ${name}`);
      await box.press('Enter');
      await page.waitForFunction(() => document.querySelector('article[data-role="assistant"]')?.dataset.status === 'complete');
      const t0 = await page.evaluate(() => performance.now());
      await page.waitForFunction(c.done, undefined, { timeout: 120_000, polling: 'raf' });
      const t1 = await page.evaluate(() => performance.now());
      const long = await page.evaluate(() => globalThis.__long);
      results[name].push({ ms: t1 - t0, long: long.length, longMax: Math.max(0, ...long) });
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  await web.close();
  await fake.close();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`## A reply's end → drawn (${runs} fresh-profile runs; medians, then every run)`);
for (const [name, rs] of Object.entries(results)) {
  console.log(`${name.padEnd(9)} ${median(rs.map((r) => r.ms)).toFixed(0).padStart(5)} ms   runs ${rs.map((r) => r.ms.toFixed(0)).join(' / ')}   long tasks ${rs.map((r) => `${r.long} (max ${r.longMax.toFixed(0)} ms)`).join(' / ')}`);
}
