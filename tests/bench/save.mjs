// Benchmark: what saving costs the page in a long chat. The release build (dist/, served on
// 127.0.0.1) opens one chat of --messages messages (the long-chat benchmark's conversation, in
// Satori's records: tests/bench/longchat/adapters/satori.mjs), and --sends messages are sent to
// the scripted fake server; every save of the open chat is the User Timing measure `satori:save`
// (src/ui/state.rs: encoding what changed, writing it to localStorage, the chat list). Two
// starts: the chat stored as Satori stores chats now (in parts), and as one record written by
// an earlier Satori (its first save writes every part). The baseline, in the same page: writing
// the whole chat as one record (JSON.stringify + localStorage.setItem), which every save cost
// before chats were stored in parts. Prints numbers; asserts nothing.
// usage: node tests/bench/save.mjs [--dist dist] [--messages 2000] [--sends 3]
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { startFakeLlm } from '../e2e/support/fake-llm.mjs';
import { makeChats } from './longchat/conversation.mjs';
import * as satori from './longchat/adapters/satori.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const root = new URL('../..', import.meta.url).pathname;
const dist = opt('dist', join(root, 'dist'));
const messages = Number(opt('messages', '2000'));
const sends = Number(opt('sends', '3'));

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN; };
const ms = (x) => `${x.toFixed(1)} ms`;

const web = await startStatic({ root: dist, prefix: '/' });
const fake = await startFakeLlm();
const browser = await chromium.launch({
  executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});

/** Saves while sending `sends` messages to a chat seeded by `records` (an adapter's function). */
async function run(records) {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(web.url);
  const entries = records(makeChats({ chats: 1, messages }));
  entries['satori.settings'] = JSON.stringify({ v: 1, provider: 'custom', base_url: fake.baseUrl, model: 'fake-small', stall_seconds: 60, summarize: false });
  await page.evaluate((e) => { localStorage.clear(); for (const [k, v] of Object.entries(e)) localStorage.setItem(k, v); }, entries);
  await page.reload();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.waitFor();
  const perSend = [];
  for (let i = 0; i < sends; i++) {
    await page.evaluate(() => performance.clearMeasures('satori:save'));
    fake.enqueue({ chunks: ['Noted: ', 'order ', `A-${1000 + i} `, 'for ', '¥99.50.'] });
    await box.fill(`Question ${i + 1}: what about order A-${1000 + i}?`);
    await box.press('Enter');
    await page.locator('article[data-role="assistant"][data-status="complete"]', { hasText: `A-${1000 + i} for` }).waitFor({ timeout: 60_000 }).catch(async (e) => {
      const alert = await page.getByRole('alert').allInnerTexts();
      const last = await page.locator('article').last().evaluate((a) => a.outerHTML).catch(() => '');
      throw new Error(`no reply (alert: ${alert.join(' | ')}; last message: ${last.slice(0, 1500)})`, { cause: e });
    });
    await page.waitForTimeout(300);
    perSend.push(await page.evaluate(() => performance.getEntriesByName('satori:save').map((e) => e.duration)));
  }
  // The baseline: the whole chat written as one record, in this page.
  const whole = await page.evaluate(() => {
    const index = JSON.parse(localStorage.getItem('satori.index'));
    const id = index.active;
    const head = JSON.parse(localStorage.getItem(`satori.session.${id}`));
    const chat = { ...head, messages: [] };
    for (let k = 0; k < (head.parts ?? 0); k++) chat.messages.push(...JSON.parse(localStorage.getItem(`satori.part.${id}.${k}`)));
    const times = [];
    let chars = 0;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const text = JSON.stringify(chat);
      localStorage.setItem('bench.whole', text);
      times.push(performance.now() - t0);
      chars = text.length;
      localStorage.removeItem('bench.whole');
    }
    return { times, chars, messages: chat.messages.length };
  });
  await page.context().close();
  return { perSend, whole };
}

try {
  console.log(`# Satori saving in a long chat — ${new Date().toISOString()}`);
  for (const [label, records] of [['stored in parts', satori.localStorage], ['one record from an earlier Satori', satori.localStorageV1]]) {
    const { perSend, whole } = await run(records);
    console.log(`\n## ${messages} messages, ${label}`);
    perSend.forEach((saves, i) => {
      console.log(`send ${i + 1}: ${saves.length} saves, median ${ms(median(saves))}, max ${ms(Math.max(...saves))} (${saves.map((s) => s.toFixed(1)).join(' ')})`);
    });
    const later = perSend.slice(label.startsWith('one') ? 1 : 0).flat();
    console.log(`every save${label.startsWith('one') ? ' after the first send' : ''}: median ${ms(median(later))}, max ${ms(Math.max(...later))}`);
    console.log(`baseline, the whole chat as one record (${whole.messages} messages, ${(whole.chars / 1e6).toFixed(2)} M characters): median ${ms(median(whole.times))} (${whole.times.map((s) => s.toFixed(1)).join(' ')})`);
  }
} finally {
  await browser.close();
  await fake.close();
  await web.close();
}
