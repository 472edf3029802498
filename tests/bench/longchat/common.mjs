// Copied from the shared benchmark scripts (see tests/bench/longchat/README.md).
// Shared helpers for the anchor benchmarks (load.mjs, longchat.mjs).
// Nothing here is app-specific: the app under test is reached only through its URL,
// a CSS selector for the message textbox, and (for longchat.mjs) an adapter module.
import path from 'node:path';
import os from 'node:os';
import { createRequire } from 'node:module';

const TOOLS = process.env.NODE_TOOLS || path.join(process.cwd(), 'node_modules');
const require = createRequire(path.join(TOOLS, 'x.js'));
export const { chromium } = require('playwright-core');

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// The last flag makes every host name except 127.0.0.1 unresolvable, so a page can never reach
// the outside network during a measurement (attempts are still counted as failed requests).
export const ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic',
  '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost'];
export const VIEWPORT = { width: 1280, height: 800 };

export const sleep = ms => new Promise(r => setTimeout(r, ms));

export function parseArgs(argv, defaults) {
  const o = { ...defaults, _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const k = a.slice(2);
      const v = argv[i + 1];
      if (v === undefined || v.startsWith('--')) o[k] = true; else { o[k] = v; i++; }
    } else o._.push(a);
  }
  return o;
}

export function stats(xs) {
  const v = xs.filter(x => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return { n: 0, min: null, median: null, max: null };
  const m = v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  return { n: v.length, min: v[0], median: m, max: v[v.length - 1] };
}
export const r1 = x => (x == null ? null : Math.round(x * 10) / 10);
export function fmtStats(s, unit = '') {
  if (!s || !s.n) return 'n/a';
  return `${r1(s.min)} / ${r1(s.median)} / ${r1(s.max)}${unit}`;
}

// In-page instrumentation, installed with addInitScript before any page script runs.
// Times are performance.now() values, i.e. milliseconds since the navigation started.
//  - long tasks (>50 ms), long animation frames, slow events (Event Timing, >=16 ms)
//  - textbox: first frame in which an element matching cfg.textbox is laid out (non-zero box, enabled);
//    dom = inserted, frame = rAF of the frame that shows it, after = first task after that frame (≈ painted)
//  - content: same three times for the first appearance of cfg.marker in the document text
//  - inView: first frame in which the textbox is inside the viewport and not under another element, and the
//    marker's text is inside the viewport (time of the first task after that frame)
//  - keys: per keystroke, keydown event timestamp -> first task after the next frame
export function instrumentation(cfg) {
  return `(() => {
  if (window.top !== window) return;
  const cfg = ${JSON.stringify(cfg)};
  const B = window.__bench = { lt: [], loaf: [], ev: [], textbox: null, content: null, inView: null, watching: false,
    keys: [], keyTrack: false };
  const po = (type, f, extra) => { try { new PerformanceObserver(l => { for (const e of l.getEntries()) f(e); })
    .observe(Object.assign({ type, buffered: true }, extra || {})); } catch (e) {} };
  po('longtask', e => B.lt.push([e.startTime, e.duration]));
  po('long-animation-frame', e => B.loaf.push([e.startTime, e.duration, e.blockingDuration || 0]));
  po('event', e => B.ev.push([e.name, e.startTime, e.duration, e.processingStart - e.startTime,
    e.processingEnd - e.processingStart]), { durationThreshold: 16 });
  const usable = el => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && !el.disabled && !el.readOnly && getComputedStyle(el).visibility !== 'hidden'; };
  // 'no' = topmost at its centre and inside the viewport, 'offscreen', or 'overlay' (another element on top)
  const cover = el => { const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + Math.min(r.height / 2, 10);
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return 'offscreen';
    const top = document.elementFromPoint(x, y);
    return top && (top === el || el.contains(top) || top.contains(el)) ? 'no' : 'overlay'; };
  const inView = node => { const rg = document.createRange(); rg.selectNodeContents(node); const r = rg.getBoundingClientRect();
    return r.width > 0 && r.bottom > 0 && r.top < innerHeight; };
  let tbPending = false, ctPending = false, mo = null, markerNode = null, tbEl = null;
  const done = () => { if (B.textbox && (B.content || !cfg.marker) && mo) { mo.disconnect(); mo = null; } };
  // after both are in the DOM, watch every frame (up to 120 s) for the first frame that shows both on screen
  const watchView = () => {
    const t0 = performance.now();
    const tick = () => {
      if (B.inView || performance.now() - t0 > 120000) return;
      if (!tbEl || !tbEl.isConnected) tbEl = [...document.querySelectorAll(cfg.textbox)].find(usable) || null;
      if (cfg.marker && (!markerNode || !markerNode.isConnected)) markerNode = findMarker(document.body); // re-rendered
      const okTb = tbEl && cover(tbEl) === 'no';
      const okCt = !cfg.marker || (markerNode && markerNode.isConnected && inView(markerNode));
      if (okTb && okCt) { const frame = performance.now(); setTimeout(() => { B.inView = { frame, after: performance.now() }; }, 0); return; }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  };
  const maybeWatch = () => { if (B.textbox && (B.content || !cfg.marker) && !B.watching) { B.watching = true; watchView(); } };
  const checkTextbox = () => {
    if (B.textbox || tbPending || !document.querySelector(cfg.textbox)) return;
    tbPending = true; const dom = performance.now();
    requestAnimationFrame(() => {
      const el = [...document.querySelectorAll(cfg.textbox)].find(usable);
      if (!el) { tbPending = false; return; }
      const frame = performance.now(), where = cover(el);
      setTimeout(() => { B.textbox = { dom, frame, after: performance.now(), covered: where }; tbPending = false; done(); maybeWatch(); }, 0);
    });
  };
  const findMarker = n => { // the text node holding the marker, searched backwards from the end of n
    if (n.nodeType === 3) return n.data.includes(cfg.marker) ? n : null;
    const w = document.createTreeWalker(n, NodeFilter.SHOW_TEXT);
    let last = n; while (last.lastChild) last = last.lastChild;
    w.currentNode = last;
    for (let t = last.nodeType === 3 ? last : w.previousNode(); t; t = w.previousNode()) if (t.data.includes(cfg.marker)) return t;
    return null;
  };
  const hit = n => {
    if (B.content || ctPending) return;
    ctPending = true; const dom = performance.now();
    markerNode = findMarker(n);
    requestAnimationFrame(() => { const frame = performance.now();
      setTimeout(() => { B.content = { dom, frame, after: performance.now() }; done(); maybeWatch(); }, 0); });
  };
  const onMut = recs => {
    checkTextbox();
    if (cfg.marker && !B.content && !ctPending) {
      for (const r of recs) {
        if (r.type === 'characterData') { if ((r.target.data || '').includes(cfg.marker)) { hit(r.target); break; } continue; }
        let found = null;
        for (const n of r.addedNodes) if ((n.textContent || '').includes(cfg.marker)) { found = n; break; }
        if (found) { hit(found); break; }
      }
    }
  };
  mo = new MutationObserver(onMut);
  mo.observe(document, { childList: true, subtree: true, characterData: true });
  // safety net for changes a MutationObserver cannot see (e.g. a stylesheet makes the textbox visible)
  const poll = () => { checkTextbox(); if (!B.textbox) setTimeout(poll, 50); };
  setTimeout(poll, 50);
  addEventListener('keydown', e => {
    if (!B.keyTrack) return;
    const t0 = e.timeStamp;
    requestAnimationFrame(() => setTimeout(() => B.keys.push(performance.now() - t0), 0));
  }, true);
})();`;
}

// Wait until the textbox (and the marker, and with needView both on screen) is shown and no long task has ended
// for quietMs. Returns false on timeout (the caller still collects what was seen).
export async function waitQuiet(page, { quietMs = 2000, timeoutMs = 120000, needContent = false, needView = false } = {}) {
  const t0 = Date.now();
  for (;;) {
    const s = await page.evaluate(() => {
      const B = window.__bench;
      if (!B) return null;
      const lastEnd = B.lt.reduce((m, [s, d]) => Math.max(m, s + d), 0);
      return { now: performance.now(), lastEnd, textbox: B.textbox, content: B.content, inView: B.inView };
    }).catch(() => null);
    if (s && s.textbox && (!needContent || s.content) && (!needView || s.inView)) {
      const ready = Math.max(s.textbox.after, s.content ? s.content.after : 0, s.inView ? s.inView.after : 0, s.lastEnd);
      if (s.now - ready >= quietMs) return true;
    }
    if (Date.now() - t0 > timeoutMs) return false;
    await sleep(250);
  }
}

// Read the instrumentation and derive the load figures.
export async function collect(page, cdp) {
  const B = await page.evaluate(() => {
    const B = window.__bench;
    const nav = performance.getEntriesByType('navigation')[0];
    const paints = Object.fromEntries(performance.getEntriesByType('paint').map(p => [p.name, p.startTime]));
    const lcp = performance.getEntriesByType('largest-contentful-paint');
    let lsChars = 0, lsKeys = 0;
    try { for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i); lsKeys++;
      lsChars += k.length + (localStorage.getItem(k) || '').length; } } catch (e) {}
    return { lt: B.lt, loaf: B.loaf, ev: B.ev, textbox: B.textbox, content: B.content, inView: B.inView,
      domContentLoaded: nav ? nav.domContentLoadedEventEnd : null, loadEvent: nav ? nav.loadEventEnd : null,
      fcp: paints['first-contentful-paint'] ?? null, lsChars, lsKeys,
      domNodes: document.getElementsByTagName('*').length,
      resources: performance.getEntriesByType('resource').map(r => ({ url: r.name, start: r.startTime, end: r.responseEnd,
        encoded: r.encodedBodySize, decoded: r.decodedBodySize, initiator: r.initiatorType })) };
  });
  const ready = Math.max(B.textbox ? B.textbox.after : 0, B.content ? B.content.after : 0, B.inView ? B.inView.after : 0);
  // "interactive" = the later of: the textbox / last message shown (and on screen, if that happened), and the end of
  // the last long task seen before the quiet window (waitQuiet makes sure the window is quiet afterwards).
  const lastEnd = B.lt.reduce((m, [s, d]) => Math.max(m, s + d), 0);
  const interactive = Math.max(ready, lastEnd);
  const lt = B.lt.filter(([s]) => s < interactive + 1);
  const metrics = await perfMetrics(cdp);
  await cdp.send('HeapProfiler.collectGarbage');
  const afterGc = await perfMetrics(cdp);
  return {
    textboxMs: B.textbox ? B.textbox.after : null,
    textboxCovered: B.textbox ? B.textbox.covered : null,
    contentMs: B.content ? B.content.after : null,
    inViewMs: B.inView ? B.inView.after : null,
    interactiveMs: interactive,
    fcpMs: B.fcp, domContentLoadedMs: B.domContentLoaded, loadEventMs: B.loadEvent,
    longTasks: lt.length,
    longTaskTotalMs: lt.reduce((a, [, d]) => a + d, 0),
    longTaskMaxMs: lt.reduce((a, [, d]) => Math.max(a, d), 0),
    blockingMs: lt.reduce((a, [, d]) => a + Math.max(0, d - 50), 0),
    loafCount: B.loaf.length,
    jsHeapUsedMB: metrics.JSHeapUsedSize / 1048576,
    jsHeapTotalMB: metrics.JSHeapTotalSize / 1048576,
    jsHeapUsedAfterGcMB: afterGc.JSHeapUsedSize / 1048576,
    domNodes: B.domNodes,
    taskDurationS: metrics.TaskDuration, scriptDurationS: metrics.ScriptDuration,
    layoutDurationS: metrics.LayoutDuration, recalcStyleDurationS: metrics.RecalcStyleDuration,
    localStorageChars: B.lsChars, localStorageKeys: B.lsKeys,
    _resources: B.resources, _longTaskList: lt,
  };
}

export async function perfMetrics(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map(m => [m.name, m.value]));
}

// Focus the textbox and type `text` twice: once as fast as the browser accepts keys (burst: wall time until the
// frame after the last key), then paced at `paceMs` between keys like a fast typist (per-key latency: keydown
// timestamp -> first task after the next frame, i.e. until the key's effect could be on screen).
export async function typeInto(page, selector, text, paceMs = 120) {
  const ok = await page.evaluate(sel => {
    const el = [...document.querySelectorAll(sel)].find(e => e.getBoundingClientRect().width > 0);
    if (!el) return false;
    el.focus(); return document.activeElement === el;
  }, selector);
  if (!ok) throw new Error('could not focus the textbox ' + selector);
  const arm = () => page.evaluate(() => { window.__bench.keys = []; window.__bench.keyTrack = true; });
  const waitKeys = n => page.waitForFunction(n => window.__bench.keys.length >= n, n, { timeout: 60000, polling: 10 });
  await sleep(300);
  await arm();
  let t0 = performance.now();
  await page.keyboard.type(text);
  const burstDispatchMs = performance.now() - t0;
  await waitKeys(text.length);
  const burstMs = performance.now() - t0;
  await sleep(1000);
  await arm();
  await page.keyboard.type(text, { delay: paceMs });
  await waitKeys(text.length);
  const r = await page.evaluate(() => {
    const B = window.__bench; B.keyTrack = false;
    const el = document.activeElement;
    return { keys: B.keys, value: el ? (el.value ?? el.textContent ?? '') : '' };
  });
  const ks = stats(r.keys);
  return { typeBurstMs: burstMs, typeBurstDispatchMs: burstDispatchMs, keyMedianMs: ks.median, keyMaxMs: ks.max,
    valueOk: r.value.includes(text + text) };
}

export async function newBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

export function originOf(url) { return new URL(url).origin; }
