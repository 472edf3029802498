// A chat shared by link: "Share chat" → the link → a fresh profile shows the same messages
// read-only and stores nothing until "Save a copy"; a tampered or hostile link is an alert and
// nothing is stored; a chat too long for a link is refused politely.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import {
  byName,
  chatAction,
  configure,
  sendMessage,
  waitIdle,
  waitForStatus,
  lastAssistant,
  localStorageEntries,
  storedChat,
  withApp,
  poll,
  everyMessage,
  textOf,
  conversation,
} from './support/browser.mjs';
import { useApp } from './support/app.mjs';

const e2e = useApp();
const KEY = 'sk-share-secret-5151';

/** What a link carries, unpacked as the app packs it (raw DEFLATE, base64url). */
function unpack(link) {
  const data = link.slice(link.indexOf('#share=') + '#share='.length);
  return JSON.parse(zlib.inflateRawSync(Buffer.from(data, 'base64url')).toString('utf8'));
}

/** A link carrying `file` (an export file object), packed as the app packs it. */
function pack(url, file) {
  return `${url}#share=${zlib.deflateRawSync(Buffer.from(JSON.stringify(file))).toString('base64url')}`;
}

const chatKeys = (entries) => Object.keys(entries).filter((k) => /^satori\.(session|part)\./.test(k));

async function makeLink(page) {
  await chatAction(page, 'Share chat');
  const dialog = page.getByRole('dialog', byName('Share chat'));
  await dialog.waitFor();
  const link = await dialog.getByRole('textbox', byName('Share link')).inputValue();
  await dialog.getByRole('button', byName('Copy link')).click();
  await dialog.getByRole('status').filter({ hasText: 'Link copied.' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link, 'the link is on the clipboard');
  await dialog.getByRole('button', byName('Close')).click();
  return link;
}

test('share chat → a fresh profile reads the same messages, stores nothing until "Save a copy"', async (t) => {
  let link;
  let shown;
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: KEY });
    const FIRST = 'First answer: **ORD-2024-00042** is in Berlin.';
    e2e.fake.enqueue(
      { chunks: [FIRST] },
      { chunks: ['Second answer: it ships on *Monday*.\n\n```js\nconst total = 42;\n```'] },
    );
    await sendMessage(page, 'Order **ORD-2024-00042**: where is it? 订单在哪里？');
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    // A second answer: the link carries only the one on screen.
    const first = await textOf(lastAssistant(page));
    await page.getByRole('button', byName('Regenerate')).last().click();
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    shown = (await everyMessage(page)).messages.map((m) => m.text);
    assert.notEqual(first, await textOf(lastAssistant(page)), 'two different answers');
    link = await makeLink(page);
    assert.ok(link.startsWith(`${e2e.web.url.split('#')[0]}#share=`), link.slice(0, 80));
    const carried = unpack(link);
    assert.equal(carried.format, 'satori-export');
    assert.equal(carried.chats.length, 1);
    const texts = carried.chats[0].messages.map((m) => m.content);
    assert.ok(texts.some((c) => c.includes('ORD-2024-00042')));
    assert.ok(!texts.includes(FIRST) && first.includes('is in Berlin'), 'the other answer stays home');
    assert.equal(carried.chats[0].messages.filter((m) => m.role === 'assistant').length, 1);
    const raw = JSON.stringify(carried);
    assert.ok(!raw.includes(KEY) && !('settings' in carried), 'no key, no settings');
  });

  await withApp(e2e.browser, link, t, async ({ page, context, requests }) => {
    // Every request the page makes, with its body: none may carry the chat.
    const sent = [];
    context.on('request', (r) => sent.push({ url: r.url(), body: r.postData() || '' }));
    const dialog = page.getByRole('dialog', byName('Shared chat'));
    await dialog.waitFor();
    await dialog.getByRole('button', byName('Save a copy')).waitFor();
    const read = await dialog.locator('.shared-body').allTextContents();
    assert.deepEqual(read, shown, 'the same messages');
    assert.deepEqual(chatKeys(await localStorageEntries(page)), [], 'nothing stored while reading');
    const origin = new URL(e2e.web.url).origin;
    assert.deepEqual(requests.filter((u) => !u.startsWith(origin)), [], 'no request leaves the app’s own server');
    assert.ok(!sent.some((r) => r.body.includes('ORD-2024') || r.url.includes('ORD-2024')), 'the chat is never sent');
    await dialog.getByRole('button', byName('Save a copy')).click();
    await dialog.waitFor({ state: 'detached' });
    // The copy is stored and open, and the address no longer carries the link.
    await poll(async () => (await everyMessage(page)).messages.length === shown.length, { message: 'the copy open' });
    const stored = await storedChat(page);
    assert.ok(stored.messages.some((m) => m.content.includes('ORD-2024-00042')));
    assert.equal(await page.evaluate(() => location.hash), '');
    assert.ok(!JSON.stringify(await localStorageEntries(page)).includes(KEY));
    // The same link again (pasted into this tab): "Save a copy" opens the chat already saved.
    const before = chatKeys(await localStorageEntries(page)).sort();
    await page.evaluate((l) => (location.hash = l.slice(l.indexOf('#'))), link);
    await dialog.getByRole('button', byName('Save a copy')).click();
    await dialog.waitFor({ state: 'detached' });
    assert.deepEqual(chatKeys(await localStorageEntries(page)).sort(), before, 'not stored twice');
    await conversation(page).getByText('ORD-2024-00042').first().waitFor();
  });
});

test('a tampered or hostile link is an alert, and nothing is stored', async (t) => {
  const chat = (id) => ({
    id,
    created_at: '2026-12-01T00:00:00.000Z',
    updated_at: '2026-12-01T00:00:00.000Z',
    messages: [{ id: 'm1', role: 'user', content: 'hi', status: 'complete', created_at: '2026-12-01T00:00:00.000Z' }],
  });
  const file = (chats, extra = {}) => ({ format: 'satori-export', version: 1, exported_at: '2026-12-01T00:00:00.000Z', chats, ...extra });
  const good = pack(e2e.web.url, file([chat('a')]));
  const at = good.indexOf('#share=') + 20;
  const flipped = good.slice(0, at) + (good[at] === 'A' ? 'B' : 'A') + good.slice(at + 1);
  const cases = [
    ['a changed character', flipped, /This share link cannot be opened: /],
    ['cut short', good.slice(0, good.length - 9), /This share link cannot be opened: /],
    ['not base64', `${e2e.web.url}#share=%%%`, /not a Satori share link, or it was cut short or changed/],
    ['two chats', pack(e2e.web.url, file([chat('a'), chat('b')])), /holds exactly one chat; this one holds 2 chats/],
    ['settings inside', pack(e2e.web.url, file([chat('a')], { settings: { model: 'x' } })), /holds exactly one chat/],
    ['a message without a role', pack(e2e.web.url, file([{ ...chat('a'), messages: [{ id: 'm1', content: 'x', status: 'complete', created_at: '2026-12-01T00:00:00.000Z' }] }])), /is not valid/],
  ];
  for (const [what, link, expected] of cases) {
    await withApp(e2e.browser, link, t, async ({ page }) => {
      const dialog = page.getByRole('dialog', byName('Shared chat'));
      await dialog.waitFor();
      const alert = dialog.getByRole('alert');
      await alert.waitFor();
      assert.match(await alert.innerText(), expected, what);
      assert.match(await alert.innerText(), /Nothing was saved\.$/, what);
      assert.equal(await dialog.getByRole('button', byName('Save a copy')).count(), 0, what);
      await dialog.getByRole('button', byName('Close')).click();
      await dialog.waitFor({ state: 'detached' });
      assert.deepEqual(chatKeys(await localStorageEntries(page)), [], `${what}: nothing stored`);
      assert.equal(await page.evaluate(() => location.hash), '', `${what}: the link is dropped`);
    });
  }
});

test('a link that names no branch opens at its newest leaf; "Save a copy" keeps what the docs say, hidden characters in its title shown', async (t) => {
  // See: #37. A link without `leaf` used to show, and save, an empty chat; pins and the
  // template's output_schema came along.
  const at = (s) => `2026-12-01T00:00:0${s}.000Z`;
  const link = pack(e2e.web.url, {
    format: 'satori-export',
    version: 1,
    exported_at: at(9),
    chats: [{
      id: 'c1',
      title: 'Invoice \u202Efdp.exe',
      role: 'planner',
      prompt: { source: 'builtin', key: 'planner', version: 1, output_schema: '{"type":"object"}' },
      created_at: at(0),
      updated_at: at(3),
      messages: [
        { id: 'm1', role: 'user', content: 'Where is ORD-7?', status: 'complete', created_at: at(1), pinned: true },
        { id: 'm2', parent: 'm1', role: 'assistant', content: 'The older answer.', status: 'complete', created_at: at(2) },
        { id: 'm3', parent: 'm1', role: 'assistant', content: 'The newest answer.', status: 'complete', created_at: at(3), excluded: true },
        { id: 'm4', parent: 'm2', role: 'user', content: 'Earlier follow-up.', status: 'complete', created_at: at(2) },
      ],
    }],
  });
  await withApp(e2e.browser, link, t, async ({ page }) => {
    const dialog = page.getByRole('dialog', byName('Shared chat'));
    await dialog.getByRole('button', byName('Save a copy')).waitFor();
    assert.deepEqual((await dialog.locator('.shared-body').allTextContents()).map((t) => t.trim()), ['Where is ORD-7?', 'The newest answer.']);
    assert.equal(await dialog.locator('.shared-title').innerText(), 'Invoice <U+202E>fdp.exe', 'the override is shown, not obeyed');
    await dialog.getByRole('button', byName('Save a copy')).click();
    await dialog.waitFor({ state: 'detached' });
    const stored = await storedChat(page);
    assert.deepEqual(stored.messages.map((m) => m.content), ['Where is ORD-7?', 'The newest answer.']);
    assert.ok(stored.messages.every((m) => !m.pinned && !m.excluded), 'no pins or exclusions');
    assert.equal(stored.prompt.key, 'planner');
    assert.equal(stored.prompt.output_schema, undefined, 'no output_schema');
    assert.equal(stored.title, 'Invoice \u202Efdp.exe', 'the title is stored as it is');
    // Shown with the override visible, in the header and in the chat list.
    assert.equal(await page.locator('.chat-title').innerText(), 'Invoice <U+202E>fdp.exe');
    assert.equal(await page.locator('.chat-link[aria-current="page"]').innerText(), 'Invoice <U+202E>fdp.exe');
  });
});

test('a chat too long for a link is refused politely', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    // Text that does not compress: 90 000 characters of noise.
    const noise = await page.evaluate(() => {
      let x = 88172645463325252n;
      let s = '';
      for (let i = 0; i < 90000; i++) {
        x ^= (x << 13n) & 0xffffffffffffffffn;
        x ^= x >> 7n;
        x ^= (x << 17n) & 0xffffffffffffffffn;
        s += String.fromCharCode(33 + Number(x % 90n));
      }
      return s;
    });
    await sendMessage(page, noise);
    await waitIdle(page);
    await chatAction(page, 'Share chat');
    const dialog = page.getByRole('dialog', byName('Share chat'));
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    assert.match(
      await alert.innerText(),
      /^This chat cannot be shared by link: the link would be \d+ characters long; Satori makes links of up to 65536 characters\. Export it as a file instead\.$/,
    );
    assert.equal(await dialog.getByRole('textbox', byName('Share link')).count(), 0);
  });
});
