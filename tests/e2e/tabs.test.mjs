// Two tabs of Satori on the same chats (one browser profile, so one localStorage): what one tab
// writes shows in the other, two tabs writing the same chat never lose a message, and a chat
// deleted in one tab does not come back from the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './support/app.mjs';
import {
  byName,
  configure,
  sendMessage,
  waitIdle,
  waitForStatus,
  lastAssistant,
  textOf,
  statusOf,
  messageBox,
  articles,
  conversation,
  chatList,
  poll,
  storedChat,
  chatFrom,
  chatAction,
} from './support/browser.mjs';

const e2e = useApp();

async function userTexts(page) {
  return articles(page, 'user').evaluateAll((els) => els.map((e) => e.querySelector('.content, .message-text')?.innerText ?? e.innerText));
}

/** The conversation as drawn: role, text and status of every question and reply, in order. */
async function drawn(page) {
  const rows = conversation(page).locator('article[data-role="user"], article[data-role="assistant"]');
  const out = [];
  for (let i = 0, n = await rows.count(); i < n; i++) {
    const row = rows.nth(i);
    out.push({ role: await row.getAttribute('data-role'), text: await textOf(row), status: await statusOf(row) });
  }
  return out;
}

async function storedUserTexts(page) {
  const s = await storedChat(page);
  return s.messages.filter((m) => m.role === 'user').map((m) => m.content).sort();
}

/**
 * From now on, page keeps a copy of storage after each chat head it writes (the write that ends a
 * save: parts go first). What another tab can read of this tab's chat is one of these copies.
 */
async function keepSaves(page) {
  await page.evaluate(() => {
    const set = Storage.prototype.setItem;
    window.__saves = [];
    Storage.prototype.setItem = function (key, value) {
      set.call(this, key, value);
      if (key.startsWith('satori.session.')) {
        window.__saves.push(Object.fromEntries(Object.keys(localStorage).map((k) => [k, localStorage.getItem(k)])));
      }
    };
  });
}

/** The open chat as each of page's saves since {@link keepSaves} left it. */
async function saves(page) {
  const all = await page.evaluate(() => window.__saves);
  return all.map((entries) => chatFrom(entries, JSON.parse(entries['satori.index']).active));
}

async function secondTab(app) {
  const page = await app.context.newPage();
  await page.goto(app.url);
  await messageBox(page).waitFor();
  return page;
}

async function say(page, text) {
  await sendMessage(page, text);
  await waitIdle(page);
  await waitForStatus(lastAssistant(page), 'complete');
}

test('two tabs on one chat: each shows what the other sent, and sending from both at once loses nothing', async (t) => {
  await e2e.open(t, async (app) => {
    const a = app.page;
    e2e.fake.reset();
    await configure(a, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    await say(a, 'first from A');
    const b = await secondTab(app);
    await poll(async () => (await userTexts(b)).some((x) => x.includes('first from A')), { message: 'B opens the chat with A\'s message' });
    await say(b, 'then from B');
    await poll(async () => (await userTexts(a)).some((x) => x.includes('then from B')), { message: 'A shows B\'s message without a reload' });
    // Both send at the same moment.
    await keepSaves(a);
    await keepSaves(b);
    await Promise.all([
      messageBox(a).fill('together A').then(() => messageBox(a).press('Enter')),
      messageBox(b).fill('together B').then(() => messageBox(b).press('Enter')),
    ]);
    await waitIdle(a);
    await waitIdle(b);
    const want = ['first from A', 'then from B', 'together A', 'together B'].sort();
    await poll(async () => JSON.stringify(await storedUserTexts(a)) === JSON.stringify(want), { message: 'the stored chat has every message', timeout: 10_000 });
    // Neither tab ever wrote a question without the start of its answer: a question the other
    // tab sent on reading that would go beside the answer (a reply and a question as siblings),
    // where no variant control reaches it.
    for (const [name, page] of [['A', a], ['B', b]]) {
      const written = await saves(page);
      assert.ok(written.length > 0, `tab ${name} saved`);
      for (const chat of written.filter(Boolean)) {
        const leaf = chat.messages.find((m) => m.id === chat.leaf);
        assert.notEqual(leaf?.role, 'user', `tab ${name} saved the question "${leaf?.content}" without its answer started`);
      }
    }
    for (const page of [a, b]) {
      await poll(async () => {
        const shown = await page.evaluate(() => {
          const id = JSON.parse(localStorage.getItem('satori.index')).active;
          return id;
        });
        return Boolean(shown);
      });
    }
    // Each tab's conversation (the log on screen) shows all four messages sent at once, every reply
    // complete. Where they sit depends on which tab heard of the other's question first: one after
    // the other, or as two variants (one drawn, the other a click away on the message that shows
    // "1 / 2" or "2 / 2").
    const four = ['together A', 'Echo: together A', 'together B', 'Echo: together B'];
    for (const [name, page] of [['A', a], ['B', b]]) {
      const seen = new Set();
      const look = async () => {
        const rows = await poll(async () => {
          const r = await drawn(page);
          if (!r.every((m) => m.role === 'user' || m.status === 'complete')) return false;
          const variants = await conversation(page).locator('.variant-count').count();
          const all = four.every((x) => seen.has(x) || r.some((m) => m.text === x));
          return (all || variants === 1) && r;
        }, { message: `tab ${name}: every reply complete, and all four drawn or one message with variants` });
        assert.deepEqual(
          rows.slice(0, 4).map((m) => m.text),
          ['first from A', 'Echo: first from A', 'then from B', 'Echo: then from B'],
          `tab ${name}: the chat before`,
        );
        for (const m of rows.slice(4)) seen.add(m.text);
      };
      await look();
      if (!four.every((x) => seen.has(x))) {
        const row = conversation(page).locator('article').filter({ has: page.locator('.variant-count') });
        const next = row.getByRole('button', byName('Next variant'));
        const before = JSON.stringify(await drawn(page));
        await ((await next.isEnabled()) ? next : row.getByRole('button', byName('Previous variant'))).click();
        await poll(async () => JSON.stringify(await drawn(page)) !== before, { message: `tab ${name} shows the other variant` });
        await look();
      }
      assert.deepEqual([...seen].sort(), [...four].sort(), `tab ${name}'s conversation shows all four`);
    }
  });
});

test('a chat deleted in one tab leaves the other tab and never comes back', async (t) => {
  await e2e.open(t, async (app) => {
    const a = app.page;
    e2e.fake.reset();
    await configure(a, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    await say(a, 'keep me');
    await a.getByRole('button', byName('New chat')).click();
    await say(a, 'delete me');
    const b = await secondTab(app);
    await poll(async () => (await userTexts(b)).some((x) => x.includes('delete me')), { message: 'B shows the chat' });
    await chatAction(a, 'Delete chat');
    const del = a.getByRole('dialog', byName('Delete chat'));
    await del.getByRole('button', byName('Delete')).click();
    await b.getByRole('alert').filter({ hasText: 'deleted in another tab' }).waitFor();
    await poll(async () => !(await chatList(b)).some((c) => c.title === 'delete me'), { message: 'B no longer lists it' });
    // B goes on working; the deleted chat stays deleted.
    await say(b, 'more in the other chat');
    const titles = await a.evaluate(() => JSON.parse(localStorage.getItem('satori.index')).sessions.map((s) => s.title));
    assert.ok(!titles.includes('delete me'), titles.join(', '));
    const records = await a.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('satori.session.')).length);
    assert.equal(records, 1);
  });
});

test('the Prompts dialog never overwrites templates another tab saved while it was open', async (t) => {
  await e2e.open(t, async (app) => {
    const a = app.page;
    const b = await secondTab(app);
    const file = (key) => `${key}:\n  version: 1\n  description: From ${key}.\n  system: You are ${key}.\n`;
    const open = async (page) => {
      await page.getByRole('button', byName('Prompts')).click();
      const dialog = page.getByRole('dialog', byName('Prompts'));
      await dialog.waitFor();
      return dialog;
    };
    const importInto = async (dialog, key) => {
      await dialog.getByLabel('Import prompts').setInputFiles({ name: `${key}.yaml`, mimeType: 'application/yaml', buffer: Buffer.from(file(key)) });
    };
    // A opens Prompts first; B saves a template while A's dialog is open.
    const da = await open(a);
    const db = await open(b);
    await importInto(db, 'fromb');
    await db.getByRole('status').filter({ hasText: 'Imported 1 prompt' }).waitFor();
    // A's dialog read the templates before that: its save is refused, nothing is lost.
    await importInto(da, 'froma');
    await da.getByRole('alert').filter({ hasText: 'changed elsewhere' }).waitFor();
    const keys = async () => JSON.parse(await a.evaluate(() => localStorage.getItem('satori.prompts'))).templates.map((x) => x.template.key);
    assert.deepEqual(await keys(), ['fromb'], "B's template is kept");
    // A's dialog now shows the stored templates; saving again works and keeps both.
    await importInto(da, 'froma');
    await da.getByRole('status').filter({ hasText: 'Imported 1 prompt' }).waitFor();
    assert.deepEqual((await keys()).sort(), ['froma', 'fromb']);
  });
});

test('what another tab writes while this one starts (after its records were read, before it listens) is not lost', async (t) => {
  await e2e.open(t, async (app) => {
    const a = app.page;
    const chat = (title) => ({ v: 1, id: 'c1', title, role: '', created_at: 1764000000000, updated_at: 1764000000000, messages: [{ id: 'u1', role: 'user', content: 'Hello', status: 'complete', created_at: 1764000000000 }], leaf: 'u1' });
    const index = (title) => JSON.stringify({ v: 1, sessions: [{ id: 'c1', title, updated_at: 1764000000000 }], active: 'c1' });
    await a.evaluate(([c, i]) => { localStorage.setItem('satori.session.c1', c); localStorage.setItem('satori.index', i); }, [JSON.stringify(chat('Before')), index('Before')]);
    const b = await secondTab(app);
    // A's start-up, slowed down: its steps wait 800 ms each (zero-delay timers, until the app has
    // drawn), and the moment it reads the chat list is noted.
    await a.addInitScript(() => {
      const later = window.setTimeout;
      window.setTimeout = (f, ms, ...rest) => later(f, !ms && !globalThis.__satoriDrawn ? 800 : ms, ...rest);
      const get = Storage.prototype.getItem;
      Storage.prototype.getItem = function (key) {
        if (key === 'satori.index' && window.__indexRead === undefined) window.__indexRead = performance.now();
        return get.call(this, key);
      };
    });
    await a.reload({ waitUntil: 'commit' });
    await poll(() => a.evaluate(() => window.__indexRead !== undefined), { message: 'A read its records' });
    assert.equal(await a.evaluate(() => !!globalThis.__satoriDrawn), false, 'A has not drawn yet');
    // B renames the chat in that moment.
    await b.evaluate(([c, i]) => { localStorage.setItem('satori.session.c1', c); localStorage.setItem('satori.index', i); }, [JSON.stringify(chat('Renamed in B')), index('Renamed in B')]);
    await poll(() => a.evaluate(() => !!globalThis.__satoriDrawn), { message: 'A drawn', timeout: 20_000 });
    await poll(async () => (await chatList(a)).some((c) => c.title.includes('Renamed in B')), { message: 'A lists the chat under the name B gave it' });
    await a.waitForTimeout(300);
    const stored = await a.evaluate(() => JSON.parse(localStorage.getItem('satori.index')).sessions.map((s) => s.title));
    assert.deepEqual(stored, ['Renamed in B'], 'A did not write the list it read before back over it');
  });
});
