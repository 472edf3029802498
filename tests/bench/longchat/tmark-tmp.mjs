import { parseArgs, newBrowser, VIEWPORT, originOf, waitQuiet, instrumentation } from './common.mjs';
import { makeChats } from './conversation.mjs';
import * as adapter from './adapters/satori.mjs';
const opt = parseArgs(process.argv.slice(2), { messages: '2000', runs: '1' });
const URL_ = opt._[0];
const conv = makeChats({ chats: 1, messages: +opt.messages, words: 60 });
const entries = adapter.localStorage(conv);
for (let run = 1; run <= +opt.runs; run++) {
  const browser = await newBrowser();
  try {
    const ctx = await browser.newContext({ viewport: VIEWPORT });
    const page = await ctx.newPage();
    const marks = [];
    page.on('console', (m) => { const t = m.text(); if (t.startsWith('TMARK')) marks.push(t); });
    await page.goto(originOf(URL_) + '/__bench_seed__');
    await page.evaluate((e) => { localStorage.clear(); for (const [k, v] of Object.entries(e)) localStorage.setItem(k, v); }, entries);
    await page.addInitScript(instrumentation({ textbox: adapter.textbox, marker: conv.marker }));
    await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.wasm'] });
    await page.goto(URL_, { waitUntil: 'load' });
    await waitQuiet(page, { quietMs: 1500, timeoutMs: 60000, needContent: true, needView: true });
    const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
    const long = events.filter((e) => e.name === 'RunTask' && e.dur > 30_000);
    console.log(`run ${run}: tasks over 30 ms: ${long.map((t) => (t.dur / 1000).toFixed(1)).join(', ')}`);
    let prev = null;
    for (const m of marks) { const [, l, t] = m.split(' '); console.log(`  ${l.padEnd(20)} ${t}  +${prev ? (t - prev).toFixed(1) : 0}`); prev = +t; }
  } finally { await browser.close(); }
}
