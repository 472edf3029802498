// Packed chat records: chats that rest are compressed and packed a moment after a request (the
// turns module does it, with bzip2 in the pack worker, or DEFLATE where that is shorter),
// verified before they replace their JSON; they open, search, export and take new messages like
// any other chat; a reply that ends in a chat packed meanwhile is kept. Both packed formats are
// also written and read here independently (Node's zlib, Python's bz2, the characters in JS), so
// the app is checked against a second implementation of each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { useApp } from './support/app.mjs';
import { pack } from './support/packed.mjs';
import { repoRoot } from './support/env.mjs';
import {
  byName,
  configure,
  sendMessage,
  waitIdle,
  waitForStatus,
  lastAssistant,
  textOf,
  localStorageEntries,
  chatFrom,
  storedChat,
  chatEntry,
  poll,
  reload,
  everyMessage,
} from './support/browser.mjs';

const e2e = useApp();
const V1 = JSON.parse(fs.readFileSync(path.join(repoRoot, 'tests', 'fixtures', 'storage', 'v1.json'), 'utf8'));

/** `bytes` through Python's bz2 (`compress` at the block size Satori uses, or `decompress`). */
function bz2(op, bytes) {
  const level = Math.min(9, Math.max(1, Math.ceil(bytes.length / 100_000)));
  const code = `import bz2,sys;d=sys.stdin.buffer.read();sys.stdout.buffer.write(bz2.${op}(d${op === 'compress' ? `,${level}` : ''}))`;
  return execFileSync('python3', ['-c', code], { input: bytes, maxBuffer: 1 << 28 });
}

// z2's characters: 63 bits to every 4 of U+0020…U+D7FF, big-endian; the last bits in the fewest.
const RADIX = 0xd800n - 0x20n;
const tailChars = (bits) => {
  let held = 1n;
  let n = 0;
  while (held < 1n << bits) { held *= RADIX; n += 1; }
  return n;
};
function writeChars(bytes) {
  const digits = (v, n) => Array.from({ length: n }, (_, i) => String.fromCharCode(0x20 + Number((v / RADIX ** BigInt(n - 1 - i)) % RADIX))).join('');
  let out = '';
  let acc = 0n;
  let bits = 0n;
  for (const b of bytes) {
    acc = (acc << 8n) | BigInt(b);
    bits += 8n;
    if (bits >= 63n) {
      bits -= 63n;
      out += digits(acc >> bits, 4);
      acc &= (1n << bits) - 1n;
    }
  }
  return bits > 0n ? out + digits(acc, tailChars(bits)) : out;
}
function readChars(text, len) {
  const total = BigInt(len) * 8n;
  const widths = [...Array(Number(total / 63n)).fill([4, 63n]), ...(total % 63n ? [[tailChars(total % 63n), total % 63n]] : [])];
  let at = 0;
  let acc = 0n;
  for (const [n, width] of widths) {
    let v = 0n;
    for (let i = 0; i < n; i++) v = v * RADIX + BigInt(text.charCodeAt(at++) - 0x20);
    acc = (acc << width) | v;
  }
  assert.equal(at, text.length, 'every character read');
  return Buffer.from(acc.toString(16).padStart(len * 2, '0'), 'hex');
}

/** `json` (a chat record) packed as z2: `z2:<bzip2 bytes>,<json bytes>:<list line>\n<body>`. */
function packBz(json) {
  const chat = JSON.parse(json);
  const bytes = bz2('compress', Buffer.from(json, 'utf8'));
  const entry = JSON.stringify({ id: chat.id, title: chat.title || 'Untitled chat', updated_at: chat.updated_at });
  return `z2:${bytes.length},${Buffer.byteLength(json)}:${entry}\n${writeChars(bytes)}`;
}

/** The JSON record in a packed record of either format, read without the app. */
function unpackAny(record) {
  const nl = record.indexOf('\n');
  const [head, body] = [record.slice(0, nl), record.slice(nl + 1)];
  const [compressed, json] = head.slice(3).split(':')[0].split(',').map(Number);
  if (head.startsWith('z2:')) {
    const text = bz2('decompress', readChars(body, compressed)).toString('utf8');
    assert.equal(Buffer.byteLength(text), json);
    return text;
  }
  assert.ok(head.startsWith('z1:'), head);
  const bytes = [];
  let acc = 0;
  let bits = 0;
  for (const ch of body) {
    acc = (acc << 15) | (ch.charCodeAt(0) - 0x20);
    bits += 15;
    while (bits >= 8 && bytes.length < compressed) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
    acc &= (1 << bits) - 1;
  }
  return zlib.inflateSync(Buffer.from(bytes)).toString('utf8');
}

/** A resting chat record of `n` messages of real Chinese prose (Satori's own interface texts). */
function chineseChat(id, n) {
  const texts = Object.values(JSON.parse(fs.readFileSync(path.join(repoRoot, 'src', 'web', 'zh-CN.json'), 'utf8'))).join('');
  // Long enough for every message (the texts alone are about 19 000 characters).
  const prose = texts.repeat(Math.ceil((n * 700) / texts.length));
  const messages = [];
  let parent;
  for (let i = 0; i < n; i++) {
    const m = { id: `${id}-${i}`, role: i % 2 ? 'assistant' : 'user', content: prose.slice(i * 700, i * 700 + 700), status: 'complete', created_at: 1764000000000 + i };
    if (parent) m.parent = parent;
    parent = m.id;
    messages.push(m);
  }
  return JSON.stringify({ v: 1, id, title: '长对话', role: '', created_at: 1764000000000, updated_at: 1764000000000 + n, messages, leaf: parent });
}

async function download(page, click) {
  const [file] = await Promise.all([page.waitForEvent('download'), click()]);
  return JSON.parse(fs.readFileSync(await file.path(), 'utf8'));
}

test('resting chats are packed after a request, verified; they open, search, export and take new messages like any other', async (t) => {
  await e2e.open(t, async ({ page }) => {
    // With the fixture's chats, a longer one in Chinese (about 84 KB: packed as z2).
    const long = chineseChat('c-long', 40);
    const index = JSON.parse(V1['satori.index']);
    index.sessions.push({ id: 'c-long', title: '长对话', updated_at: 1764000000040 });
    // A chat whose reply is still arriving in another tab (its record says so): that tab adds the
    // reply to this record when it ends, and may run a version that cannot read z2. It stays JSON.
    // Listed before the others, so the pass has come to it when they are packed.
    const arrivingChat = JSON.parse(chineseChat('c-arriving', 12));
    arrivingChat.title = '回复中';
    arrivingChat.updated_at = 1764000001500;
    arrivingChat.messages[11].status = 'streaming';
    const arriving = JSON.stringify(arrivingChat);
    index.sessions.splice(1, 0, { id: 'c-arriving', title: '回复中', updated_at: arrivingChat.updated_at });
    const records = { ...V1, 'satori.session.c-long': long, 'satori.session.c-arriving': arriving, 'satori.index': JSON.stringify(index) };
    await page.evaluate((records) => {
      for (const [k, v] of Object.entries(records)) localStorage.setItem(k, v);
    }, records);
    await reload(page);
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    // The open chat ("Open one") is never packed; a request starts a pass a moment later.
    await sendMessage(page, 'Anything new?');
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    let stored = {};
    await poll(async () => {
      stored = await localStorageEntries(page);
      return ['c-en', 'c-zh', 'c-long'].every((id) => /^z[12]:/.test(stored[`satori.session.${id}`] ?? ''));
    }, { message: 'the three resting chats packed', timeout: 20_000 });
    assert.ok(stored['satori.session.c-active'].startsWith('{"v":2,"parts":'), 'the open chat is not packed: saved in parts');
    assert.equal(stored['satori.session.c-broken'], V1['satori.session.c-broken'], 'an unreadable record is left byte for byte');
    assert.equal(stored['satori.session.c-arriving'], arriving, 'a chat with a reply still arriving is left byte for byte');
    for (const [id, json] of [['c-en', V1['satori.session.c-en']], ['c-zh', V1['satori.session.c-zh']], ['c-long', long]]) {
      const key = `satori.session.${id}`;
      assert.ok(stored[key].length < json.length, `${id}: ${stored[key].length} characters packed, ${json.length} as JSON`);
      // Packed by the app, read by Node (and Python's bz2): the very same JSON, and the same
      // list line as Node writes.
      assert.equal(unpackAny(stored[key]), json, id);
      assert.equal(pack(json).split('\n')[0].split(':').slice(2).join(':'), stored[key].split('\n')[0].split(':').slice(2).join(':'));
    }
    // The long one is bzip2 (z2), and shorter than DEFLATE at 15 bits a character would be; the
    // fixture's short chats are whichever is shorter.
    assert.ok(stored['satori.session.c-long'].startsWith('z2:'), stored['satori.session.c-long'].slice(0, 40));
    assert.ok(stored['satori.session.c-long'].length < pack(long).length, `${stored['satori.session.c-long'].length} < ${pack(long).length}`);
    for (const id of ['c-en', 'c-zh']) {
      const json = V1[`satori.session.${id}`];
      assert.ok(stored[`satori.session.${id}`].length <= Math.min(pack(json).length, packBz(json).length), id);
    }
    // A chat packed as z2 opens.
    const log = page.getByRole('log', byName('Conversation'));
    const longChat = JSON.parse(long);
    // Its first 40 characters as drawn: Markdown leaves out the whitespace a message starts with
    // (the text is cut from the Chinese interface table, wherever a message happens to begin).
    const lastText = longChat.messages[39].content.trim().slice(0, 40);
    assert.equal(lastText.length, 40, 'the last message has text');
    // Looked at before the click: after it, a fast unpack may already have drawn the chat.
    assert.ok(!(await log.innerText()).includes(lastText), 'not on screen before the chat is chosen');
    await chatEntry(page, '长对话').click();
    await poll(async () => (await log.innerText()).includes(lastText), { message: 'the z2 chat on screen' });

    // A packed chat opens.
    await chatEntry(page, 'Shipping question').click();
    await poll(async () => /1Z999AA10123456784/.test(await log.innerText()), { message: 'the packed chat on screen' });

    // Search reads packed chats too, and opens one at the message.
    await page.getByRole('button', byName('Search chats')).click();
    const search = page.getByRole('dialog', byName('Search chats'));
    await search.getByRole('searchbox', byName('Search chats')).fill('SF1234567890');
    await search.getByRole('status').filter({ hasText: '1 chat matches.' }).waitFor();
    await search.getByRole('button', { name: /SF1234567890/ }).click();
    await search.waitFor({ state: 'detached' });
    await poll(async () => /快递单号：SF1234567890/.test(await log.innerText()), { message: 'the packed chat found by search on screen' });
    const found = page.locator('article.msg.found');
    await found.waitFor();
    assert.match(await found.innerText(), /SF1234567890/, 'the search opens the packed chat at the message');

    // "Export all" carries packed chats as chats.
    const file = await download(page, () => page.getByRole('button', byName('Export all')).click());
    const zh = file.chats.find((c) => c.id === 'c-zh');
    assert.ok(zh, 'the packed chat is exported');
    assert.deepEqual(zh.messages.map((m) => m.content), JSON.parse(V1['satori.session.c-zh']).messages.map((m) => m.content));

    // A new message in a packed chat: the chat is stored in parts again, with everything.
    await sendMessage(page, '谢谢！');
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    const entries = await localStorageEntries(page);
    assert.ok(entries['satori.session.c-zh'].startsWith('{"v":2,"parts":1,'), 'a head, no longer the packed record');
    const after = chatFrom(entries, 'c-zh');
    assert.deepEqual(after.messages.map((m) => m.content).slice(0, 3), JSON.parse(V1['satori.session.c-zh']).messages.map((m) => m.content));
    assert.equal(after.messages[3].content, '谢谢！');

    // After a reload the app starts in a packed chat if that is the one open.
    const key = 'satori.session.c-zh';
    await page.evaluate(([k, v]) => {
      localStorage.setItem(k, v);
      localStorage.removeItem('satori.part.c-zh.0');
    }, [key, pack(JSON.stringify(after))]);
    await reload(page);
    await poll(async () => /谢谢！/.test(await log.innerText()), { message: 'the packed chat open after a reload' });

    // The same as z2 written by Node and Python: it opens after a reload too; then damaged (one
    // character changed), it is reported and left byte for byte.
    const z2 = packBz(JSON.stringify(after));
    await page.evaluate(([k, v]) => localStorage.setItem(k, v), [key, z2]);
    await reload(page);
    await poll(async () => /谢谢！/.test(await log.innerText()), { message: 'the z2 chat written by Node open after a reload' });
    const at = z2.length - 20;
    const damaged = z2.slice(0, at) + String.fromCharCode(((z2.charCodeAt(at) - 0x20 + 1) % 0xd7e0) + 0x20) + z2.slice(at + 1);
    await page.evaluate(([k, v]) => localStorage.setItem(k, v), [key, damaged]);
    await reload(page);
    await page.getByRole('alert').filter({ hasText: 'That chat could not be opened: its packed data is damaged.' }).first().waitFor();
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), key), damaged, 'the damaged record is left as it was');
    assert.equal(await log.innerText().then((t) => t.includes('谢谢！')), false, 'the damaged chat is not shown');
  });
});

test('a reply stopped by leaving its chat, packed meanwhile, is added to it', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    await sendMessage(page, 'Other chat');
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    await page.getByRole('button', byName('New chat')).click();
    e2e.fake.enqueue({ chunks: Array.from({ length: 60 }, (_, i) => `word${i} `), delayMs: 100 });
    await sendMessage(page, 'Slow one');
    await poll(async () => (await textOf(lastAssistant(page))).includes('word3'), { message: 'the reply streaming' });
    const slow = await storedChat(page);
    const key = `satori.session.${slow.id}`;
    const packed = pack(JSON.stringify(slow));
    // In one task: the record is packed (its parts go), then the user opens the other chat.
    await page.evaluate(([k, v, id]) => {
      localStorage.setItem(k, v);
      for (const p of Object.keys(localStorage)) if (p.startsWith(`satori.part.${id}.`)) localStorage.removeItem(p);
      [...document.querySelectorAll('nav[aria-label="Chats"] li button')].find((b) => b.innerText.trim() === 'Other chat').click();
    }, [key, packed, slow.id]);
    // Leaving stops the reply; what arrived is added to the chat it belongs to.
    await poll(async () => (await page.evaluate((k) => localStorage.getItem(k), key)).startsWith('{'), {
      message: 'the reply added to the packed chat, saved in parts',
      timeout: 20_000,
    });
    const chat = await storedChat(page, slow.id);
    assert.deepEqual(chat.messages.filter((m) => m.role !== 'system').map((m) => [m.role, m.status]), [['user', 'complete'], ['assistant', 'stopped']]);
    assert.match(chat.messages.find((m) => m.role === 'assistant').content, /^word0 word1 word2 word3 /);
    assert.equal(chat.messages.find((m) => m.role === 'user').content, 'Slow one');
    assert.equal(await page.getByRole('alert').filter({ hasText: /could not be added/ }).count(), 0);
  });
});

test('full storage: the other chats are packed at once to make room, the chat on screen is saved and the alert goes', async (t) => {
  await e2e.open(t, async ({ page }) => {
    // Twelve chats of about 120 000 characters of prose each, as JSON, changed a moment ago (a
    // regular pass would leave them alone: only full storage packs them).
    const prose = fs.readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => fs.readFileSync(path.join(repoRoot, 'docs', f), 'utf8')).join('\n');
    const records = {};
    const index = { v: 1, sessions: [] };
    for (let c = 0; c < 12; c++) {
      const messages = [];
      let parent;
      for (let i = 0; i < 40; i++) {
        const start = ((c * 40 + i) * 3000) % (prose.length - 3000);
        const m = { id: `big${c}-${i}`, role: i % 2 ? 'assistant' : 'user', content: prose.slice(start, start + 3000), status: 'complete', created_at: 1764000000000 + i };
        if (parent) m.parent = parent;
        parent = m.id;
        messages.push(m);
      }
      const chat = { v: 1, id: `big${c}`, title: `Big ${c}`, role: '', created_at: 1764000000000, updated_at: Date.now() - 60_000 + c, messages, leaf: parent };
      records[`satori.session.big${c}`] = JSON.stringify(chat);
      index.sessions.push({ id: chat.id, title: chat.title, updated_at: chat.updated_at });
    }
    index.sessions.reverse();
    records['satori.index'] = JSON.stringify(index);
    await page.evaluate((r) => { for (const [k, v] of Object.entries(r)) localStorage.setItem(k, v); }, records);
    await reload(page);
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    await page.getByRole('button', byName('New chat')).click();
    // Fill what is left with something Satori cannot pack.
    await page.evaluate(() => {
      let size = 1 << 20;
      for (let i = 0; size >= 16; i++) {
        try { localStorage.setItem(`filler.${i}`, 'x'.repeat(size)); } catch { size = size >> 1; }
      }
    });
    await sendMessage(page, 'Order 4711 for 99.50');
    await waitIdle(page);
    await poll(async () => {
      const all = await localStorageEntries(page);
      const packed = Object.keys(all).filter((k) => k.startsWith('satori.session.big') && /^z[12]:/.test(all[k])).length;
      const mine = Object.keys(all).find((k) => k.startsWith('satori.session.') && !k.startsWith('satori.session.big')
        && JSON.stringify(chatFrom(all, k.slice('satori.session.'.length))?.messages ?? []).includes('Order 4711 for 99.50'));
      return packed === 12 && mine;
    }, { message: 'the other chats packed and the chat on screen saved', timeout: 20_000 });
    await poll(async () => (await page.getByRole('alert').filter({ hasText: /storage is full/i }).count()) === 0, { message: 'the full-storage alert taken back' });
    // The packed chats are all still there, whole.
    await chatEntry(page, 'Big 3').click();
    await page.getByRole('log', byName('Conversation')).locator('article[data-message^="big3-"]').first().waitFor();
    const { messages } = await everyMessage(page);
    assert.deepEqual(messages.map((m) => m.id), Array.from({ length: 40 }, (_, i) => `big3-${i}`), 'a packed chat with its 40 messages');
    await page.evaluate(() => { for (const k of Object.keys(localStorage)) if (k.startsWith('filler.')) localStorage.removeItem(k); });
  });
});
