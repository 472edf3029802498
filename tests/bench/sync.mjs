// Sync's cost with a real WebDAV server (WsgiDAV): device A with a library of CHATS chats of
// MESSAGES messages starts syncing (the first upload), device B joins (the first download), A
// sends one message and its pass follows by itself, B's next pass (as when the page comes back
// online) takes it in, B passes again with nothing changed, and then "Sync now" (which lists the
// whole folder). For each: requests, bytes sent and received (from the server's log) and the
// time until the status says "Synced".
// The baseline, in the same run: the library's size as stored in A's localStorage, which a
// whole-snapshot sync would move every time.
//
// usage: node tests/bench/sync.mjs [--chats 200] [--messages 100]   (after a build)
// localStorage holds about 5 M characters per site, so the library must fit: 200 × 100 short
// messages is about 3 MB.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { startFakeLlm } from '../e2e/support/fake-llm.mjs';
import { startDav } from '../e2e/support/dav.mjs';
import { localStorageV1 } from './longchat/adapters/satori.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const CHATS = arg('chats', 200);
const MESSAGES = arg('messages', 100);

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-dav-bench-'));
fs.mkdirSync(path.join(root, 'files'));
const web = await startStatic({ root: 'dist', prefix: '/' });
const fake = await startFakeLlm();
const dav = await startDav({ root: path.join(root, 'files'), user: 'ann', password: 'pw', log: path.join(root, 'log.jsonl') });
const browser = await chromium.launch({
  executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});

/** What the server saw since `from` (a log length): requests, bytes in and out. */
function traffic(from) {
  const rows = dav.log().slice(from);
  const sum = (k) => rows.reduce((n, r) => n + (r[k] ?? 0), 0);
  const by = {};
  for (const r of rows) by[r.method] = (by[r.method] ?? 0) + 1;
  return { requests: rows.length, sent: sum('bytes_in'), received: sum('bytes_out'), by };
}

async function settled(page) {
  await page.waitForFunction(
    () => {
      const t = document.querySelector('.sync-status')?.textContent ?? '';
      return t !== '' && !t.endsWith('…');
    },
    null,
    { timeout: 600_000 },
  );
  return page.locator('.sync-status').textContent();
}

async function device(entries) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  await page.goto(web.url);
  await page.locator('.composer textarea').waitFor();
  if (entries) {
    await page.evaluate((e) => {
      for (const [k, v] of Object.entries(e)) localStorage.setItem(k, v);
    }, entries);
    await page.reload();
    await page.locator('.composer textarea').waitFor();
  }
  return { ctx, page };
}

async function measured(label, page, act) {
  const from = dav.log().length;
  const t0 = Date.now();
  await act();
  // The controls wait while the call runs.
  await page.waitForFunction(() => document.querySelectorAll('.sync-actions button:disabled').length === 0, null, { timeout: 600_000 });
  const status = await settled(page);
  const ms = Date.now() - t0;
  if (!/^Synced at/.test(status)) throw new Error(`${label}: ${status}`);
  const t = traffic(from);
  const kinds = Object.entries(t.by).map(([m, n]) => `${m} ${n}`).join(', ');
  console.log(
    `${label.padEnd(34)} ${String(t.requests).padStart(8)} ${(t.sent / 1e3).toFixed(1).padStart(10)} ${(t.received / 1e3).toFixed(1).padStart(12)} ${String(ms).padStart(8)}   ${kinds}`,
  );
  return t;
}

/** Until the server has had no request for 8 s: passes that follow a step by themselves (a
 * device's pass after storing what it downloaded) are not counted in the next step. */
async function quiet() {
  let seen = -1;
  while (seen !== dav.log().length) {
    seen = dav.log().length;
    await new Promise((r) => setTimeout(r, 8_000));
  }
}

/** Counts the passes that end "Synced" on `page` (from now on). */
async function countPasses(page) {
  await page.evaluate(() => {
    window.benchSynced = 0;
    window.addEventListener('satori-sync', (e) => {
      if (/^Synced at/.test(e.detail)) window.benchSynced += 1;
    });
  });
}

/** A pass that runs by itself after `act`: measured from `act` until it ends "Synced". */
async function measuredPass(label, page, act) {
  const from = dav.log().length;
  const before = await page.evaluate(() => window.benchSynced);
  const t0 = Date.now();
  await act();
  await page.waitForFunction((n) => window.benchSynced > n, before, { timeout: 600_000 });
  const ms = Date.now() - t0;
  const t = traffic(from);
  const kinds = Object.entries(t.by).map(([m, n]) => `${m} ${n}`).join(', ');
  console.log(
    `${label.padEnd(34)} ${String(t.requests).padStart(8)} ${(t.sent / 1e3).toFixed(1).padStart(10)} ${(t.received / 1e3).toFixed(1).padStart(12)} ${String(ms).padStart(8)}   ${kinds}`,
  );
  return t;
}

async function startSyncing(page) {
  await page.getByRole('button', { name: 'Settings', exact: true }).first().click();
  const s = page.locator('.sync-settings');
  await s.getByLabel('WebDAV URL').fill(`${dav.url}bench/`);
  await s.getByLabel('User name').fill('ann');
  await s.getByLabel('Password').fill('pw');
  await s.getByLabel('Encryption passphrase', { exact: true }).fill('bench passphrase');
  await s.getByRole('button', { name: 'Start syncing' }).click();
}

try {
  const conv = {
    current: 0,
    chats: Array.from({ length: CHATS }, (_, c) => ({
      title: `Chat ${c + 1} about order #${4000 + c}`,
      messages: Array.from({ length: MESSAGES }, (_, m) => ({
        role: m % 2 ? 'assistant' : 'user',
        content: m % 2 ? `Reply ${m} in chat ${c}: the parcel ships on day ${m % 28}.` : `Question ${m} in chat ${c}: where is order #${4000 + c}?`,
      })),
    })),
  };
  const entries = localStorageV1(conv);
  entries['satori.settings'] = JSON.stringify({ v: 1, provider: 'custom', base_url: fake.baseUrl, model: 'fake-small', stall_seconds: 30 });
  const library = Object.values(entries).reduce((n, v) => n + v.length, 0);
  console.log(`# Satori sync — ${new Date().toISOString()} — ${CHATS} chats × ${MESSAGES} messages, WsgiDAV on loopback`);
  console.log(`baseline: the library as stored, ${(library / 1e3).toFixed(1)} KB (what a whole-snapshot sync moves each time)`);
  console.log(`${'step'.padEnd(34)} ${'requests'.padStart(8)} ${'sent KB'.padStart(10)} ${'received KB'.padStart(12)} ${'ms'.padStart(8)}   requests by method`);
  const a = await device(entries);
  await measured('A: first sync (uploads all)', a.page, () => startSyncing(a.page));
  const b = await device(null);
  await measured('B: joins (downloads all)', b.page, () => startSyncing(b.page));
  // A sends one message in the open chat; its pass follows a few seconds later, by itself.
  await a.page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await b.page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await countPasses(a.page);
  await countPasses(b.page);
  await quiet();
  await measuredPass('A: one new message, by itself', a.page, async () => {
    await a.page.locator('.composer textarea').fill('One more question');
    await a.page.locator('.composer textarea').press('Enter');
    await a.page.waitForFunction(() => [...document.querySelectorAll('article[data-role="assistant"]')].at(-1)?.dataset.status === 'complete');
  });
  // A pass of its own may follow the reply's end: let it finish before B looks.
  await quiet();
  const backOnline = (page) => page.evaluate(() => window.dispatchEvent(new Event('online')));
  await measuredPass('B: takes it in, by itself', b.page, () => backOnline(b.page));
  await measuredPass('B: nothing changed, by itself', b.page, () => backOnline(b.page));
  await b.page.getByRole('button', { name: 'Settings', exact: true }).first().click();
  const syncNow = (page) => page.locator('.sync-settings').getByRole('button', { name: 'Sync now' }).click();
  await measured('B: "Sync now" (lists the folder)', b.page, () => syncNow(b.page));
  await a.ctx.close();
  await b.ctx.close();
} finally {
  await browser.close();
  await dav.stop();
  await fake.close();
  await web.close();
  fs.rmSync(root, { recursive: true, force: true });
}
