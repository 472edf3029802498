// What the long tasks of a long chat's load are made of: seeds Satori's records for one chat of
// --messages messages (as longchat.mjs does), traces one cold load in Chromium, and prints every
// task over 50 ms with the calls, compiles, style and layout inside it (over 2 ms each), in ms
// from the task's start. A diagnostic, not a benchmark: compare with longchat.mjs's figures.
// usage: node trace-load.mjs URL [--messages 2000] [--runs 1]
import { parseArgs, newBrowser, VIEWPORT, originOf, waitQuiet, instrumentation } from './common.mjs';
import { makeChats } from './conversation.mjs';
import * as adapter from './adapters/satori.mjs';

const opt = parseArgs(process.argv.slice(2), { messages: '2000', runs: '1' });
const URL_ = opt._[0];
if (!URL_) { console.error('usage: node trace-load.mjs URL [--messages 2000] [--runs 1]'); process.exit(2); }
const conv = makeChats({ chats: 1, messages: +opt.messages, words: 60 });
const entries = adapter.localStorage(conv);
for (let run = 1; run <= +opt.runs; run++) {
  const browser = await newBrowser();
  try {
    const ctx = await browser.newContext({ viewport: VIEWPORT });
    const page = await ctx.newPage();
    await page.goto(originOf(URL_) + '/__bench_seed__');
    await page.evaluate((e) => { localStorage.clear(); for (const [k, v] of Object.entries(e)) localStorage.setItem(k, v); }, entries);
    await page.addInitScript(instrumentation({ textbox: adapter.textbox, marker: conv.marker }));
    await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.wasm'] });
    await page.goto(URL_, { waitUntil: 'load' });
    await waitQuiet(page, { quietMs: 2000, timeoutMs: 60000, needContent: true, needView: true });
    const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
    const long = events.filter((e) => e.name === 'RunTask' && e.dur > 50_000);
    console.log(`run ${run}: ${long.length} task(s) over 50 ms`);
    for (const t of long) {
      console.log(`  task ${(t.dur / 1000).toFixed(1)} ms`);
      const inside = events.filter((e) => e !== t && e.tid === t.tid && e.ts >= t.ts && e.ts + (e.dur ?? 0) <= t.ts + t.dur && e.dur > 2000);
      for (const e of inside.sort((a, b) => a.ts - b.ts)) {
        console.log(`    at ${((e.ts - t.ts) / 1000).toFixed(1)}  ${(e.dur / 1000).toFixed(1)} ms  ${e.name}`);
      }
    }
  } finally {
    await browser.close();
  }
}
