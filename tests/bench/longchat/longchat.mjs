// Copied from the shared benchmark scripts (see tests/bench/longchat/README.md).
// Long-history load of a chat web app: seed a big conversation set, then measure the load and typing.
// usage: node longchat.mjs URL --adapter adapters/APP.mjs [--chats 1] [--messages 2000] [--words 60] [--runs 5]
//                          [--text 'hello benchmark 1234'] [--pace 120] [--textbox CSS] [--seed-path /__bench_seed__] [--out file.json]
//   URL        the built app, served from 127.0.0.1
//   --adapter  module that knows how the app stores chats (see adapters/betterchatgpt.mjs for the interface)
//   --chats/--messages/--words  conversation set: chats x messages (alternating user/assistant), ~words words each
//   --seed-path  a same-origin path that does NOT load the app (default gives a 404 page); storage is written there,
//                so the measured navigation is a plain cold load with the data already in storage.
// Figures per run (times in ms from navigation start): textbox painted, last message of the current chat painted,
// interactive (later of those and the end of the last long task before a 2 s quiet window), long tasks > 50 ms up to
// then (count, total, max), JS heap, DOM size, storage size, and typing --text (20 characters) into the textbox:
// burst (as fast as keys are accepted, until the frame after the last key) and paced (--pace ms between keys,
// per-key keydown -> next frame latency).
// env: NODE_TOOLS (node_modules folder holding playwright-core), CHROMIUM (browser binary)
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, stats, fmtStats, r1, instrumentation, waitQuiet, collect, typeInto, newBrowser, VIEWPORT,
  originOf, perfMetrics } from './common.mjs';
import { makeChats } from './conversation.mjs';

const opt = parseArgs(process.argv.slice(2), { runs: '5', chats: '1', messages: '2000', words: '60',
  text: 'hello benchmark 1234', pace: '120', 'seed-path': '/__bench_seed__', out: '' });
const URL_ = opt._[0];
if (!URL_ || !opt.adapter) { console.error('usage: node longchat.mjs URL --adapter adapters/APP.mjs [options]'); process.exit(2); }
const adapter = await import(pathToFileURL(path.resolve(opt.adapter)).href);
const TEXTBOX = opt.textbox || adapter.textbox || 'textarea';
const conv = makeChats({ chats: +opt.chats, messages: +opt.messages, words: +opt.words });
const entries = adapter.localStorage ? adapter.localStorage(conv) : null;
const countWords = s => s.split(/\s+/).filter(Boolean).length;
const allMsgs = conv.chats.flatMap(c => c.messages);
console.log(`conversation set: ${conv.chats.length} chat(s) x ${conv.chats[0].messages.length} messages, ` +
  `${allMsgs.length} messages, ${r1(allMsgs.reduce((a, m) => a + countWords(m.content), 0) / allMsgs.length)} words/message, ` +
  `${allMsgs.reduce((a, m) => a + m.content.length, 0)} characters of message text`);

async function oneRun() {
  const browser = await newBrowser();
  try {
    const ctx = await browser.newContext({ viewport: VIEWPORT });
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(e.message));
    // 1. seed on a same-origin page that does not run the app
    await page.goto(originOf(URL_) + opt['seed-path'], { waitUntil: 'load' });
    if (entries) await page.evaluate(e => { localStorage.clear(); for (const [k, v] of Object.entries(e)) localStorage.setItem(k, v); }, entries);
    if (adapter.seed) await adapter.seed(page, conv);
    const seededChars = await page.evaluate(() => { let n = 0; for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i); n += k.length + localStorage.getItem(k).length; } return n; });
    // 2. measured navigation
    await page.addInitScript(instrumentation({ textbox: TEXTBOX, marker: conv.marker }));
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
    const base = await perfMetrics(cdp);
    await page.goto(URL_, { waitUntil: 'load', timeout: 180000 });
    const quiet = await waitQuiet(page, { quietMs: 2000, timeoutMs: 180000, needContent: true, needView: true });
    if (!quiet) console.log('  (timed out waiting for textbox + last message on screen and a quiet main thread)');
    const m = await collect(page, cdp);
    m.taskDurationS -= base.TaskDuration; m.scriptDurationS -= base.ScriptDuration;
    m.layoutDurationS -= base.LayoutDuration; m.recalcStyleDurationS -= base.RecalcStyleDuration;
    // 3. typing
    const t = await typeInto(page, TEXTBOX, opt.text, +opt.pace);
    // 4. scrolling back to the first message, one view per frame (a fast wheel), if the
    // adapter names the scroller: long tasks meanwhile, and the time to reach the top.
    const s = adapter.scroller ? await scrollBack(page, adapter.scroller) : {};
    await browser.close();
    const { _resources, _longTaskList, ...fig } = m;
    return { ...fig, ...t, ...s, seededChars, errors };
  } catch (e) { await browser.close(); throw e; }
}

async function scrollBack(page, selector) {
  return page.evaluate(async (sel) => {
    const el = document.querySelector(sel);
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const before = window.__bench.lt.length;
    const t0 = performance.now();
    let frames = 0;
    for (; frames < 5000; frames++) {
      if (el.scrollTop <= 0) {
        await frame();
        await frame();
        if (el.scrollTop <= 0) break;
      }
      el.scrollTop = Math.max(0, el.scrollTop - el.clientHeight);
      await frame();
    }
    await new Promise((r) => setTimeout(r, 200)); // long-task entries arrive asynchronously
    const lts = window.__bench.lt.slice(before).filter(([start]) => start >= t0);
    return { scrollBackMs: performance.now() - t0, scrollFrames: frames, scrollLongTasks: lts.length,
      scrollLongTaskMaxMs: lts.reduce((m, [, d]) => Math.max(m, d), 0) };
  }, selector);
}

const runs = [];
for (let i = 0; i < +opt.runs; i++) {
  const r = await oneRun();
  runs.push(r);
  console.log(`run ${i + 1}: textbox ${r1(r.textboxMs)} ms, last message ${r1(r.contentMs)} ms, both on screen ${r1(r.inViewMs)} ms, interactive ${r1(r.interactiveMs)} ms, ` +
    `long tasks ${r.longTasks} / ${r1(r.longTaskTotalMs)} ms (max ${r1(r.longTaskMaxMs)}), heap ${r1(r.jsHeapUsedMB)} MB ` +
    `(after GC ${r1(r.jsHeapUsedAfterGcMB)}), DOM ${r.domNodes}, storage ${r.seededChars} -> ${r.localStorageChars} chars, ` +
    `type ${opt.text.length} chars burst ${r1(r.typeBurstMs)} ms, paced per key median ${r1(r.keyMedianMs)} max ` +
    `${r1(r.keyMaxMs)} ms (text arrived: ${r.valueOk}), ` +
    (r.scrollFrames !== undefined ? `scroll to the first message ${r1(r.scrollBackMs)} ms / ${r.scrollFrames} frames, long tasks ${r.scrollLongTasks} (max ${r1(r.scrollLongTaskMaxMs)}), ` : '') +
    `errors ${r.errors.length}`);
}
const keys = ['textboxMs', 'contentMs', 'inViewMs', 'interactiveMs', 'fcpMs', 'longTasks', 'longTaskTotalMs', 'longTaskMaxMs', 'blockingMs',
  'jsHeapUsedMB', 'jsHeapUsedAfterGcMB', 'domNodes', 'taskDurationS', 'scriptDurationS', 'layoutDurationS',
  'recalcStyleDurationS', 'seededChars', 'localStorageChars', 'typeBurstMs', 'typeBurstDispatchMs', 'keyMedianMs', 'keyMaxMs',
  'scrollBackMs', 'scrollFrames', 'scrollLongTasks', 'scrollLongTaskMaxMs'];
const shown = keys.filter(k => runs.some(r => r[k] !== undefined));
const summary = Object.fromEntries(shown.map(k => [k, stats(runs.map(r => r[k]))]));
console.log(`\nmin / median / max over ${runs.length} runs (${conv.chats.length} x ${opt.messages} messages)`);
for (const k of shown) console.log(`  ${k.padEnd(22)} ${fmtStats(summary[k])}`);
if (runs.some(r => !r.valueOk)) console.log('  WARNING: typed text did not reach the textbox in some runs');
if (runs[0].errors.length) console.log('  page errors:', runs[0].errors.slice(0, 5));
if (opt.out) fs.writeFileSync(opt.out, JSON.stringify({ url: URL_, date: new Date().toISOString(), chats: +opt.chats,
  messages: +opt.messages, words: +opt.words, runs, summary }, null, 1));
