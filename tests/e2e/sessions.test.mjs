// Chat sessions: sidebar list, titles, rename, delete, persistence across reloads, storage layout,
// and keeping the API key out of places it does not belong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startFakeLlm } from './support/fake-llm.mjs';
import { useApp } from './support/app.mjs';
import {
  configure,
  waitIdle,
  sendMessage,
  messageBox,
  articles,
  lastAssistant,
  lastUser,
  textOf,
  waitForStatus,
  poll,
  reload,
  chatList,
  chatEntry,
  localStorageEntries,
  byName,
  sleep,
  storedChat,
  chatAction,
} from './support/browser.mjs';

// Some tests make the app's own files fail: no service worker may answer for them.
const e2e = useApp({ serviceWorkers: 'block' });

async function setup(page, apiKey = 'sk-e2e-sessions') {
  e2e.fake.reset();
  await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey });
}

async function chat(page, text) {
  await sendMessage(page, text);
  await waitIdle(page);
  await waitForStatus(lastAssistant(page), 'complete');
}

// The "New chat" button: the only control of that name (an untitled chat is listed as
// "Untitled chat"; a second match would fail Playwright's strict mode).
const newChatButton = (page) => page.getByRole('button', byName('New chat'));

async function newChat(page) {
  await newChatButton(page).click();
  await poll(async () => (await articles(page, 'user').count()) === 0, { message: 'an empty conversation after "New chat"' });
}

async function titles(page) {
  return (await chatList(page)).map((c) => c.title);
}

/** Waits until exactly the chat titled `title` carries aria-current="page". */
async function expectCurrent(page, title, message = `"${title}" is the active chat`) {
  let list = [];
  try {
    await poll(
      async () => {
        list = await chatList(page);
        const active = list.filter((c) => c.current === 'page');
        return active.length === 1 && active[0].title === title;
      },
      { timeout: 5_000, message },
    );
  } catch (err) {
    err.message += ` — sidebar: ${JSON.stringify(list)} (exactly one entry must have aria-current="page")`;
    throw err;
  }
}

async function expectTitles(page, expected, message) {
  try {
    await poll(async () => JSON.stringify(await titles(page)) === JSON.stringify(expected), { message });
  } catch (err) {
    assert.deepEqual(await titles(page), expected, message); // shows a readable diff
    throw err;
  }
}

test('New chat, newest-first list, active marker, titles, rename and delete', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 'Plan a trip to Kyoto');
    await expectTitles(page, ['Plan a trip to Kyoto'], 'the title from the first user message');

    await newChat(page);
    await chat(page, 'Bake sourdough bread');
    await expectTitles(page, ['Bake sourdough bread', 'Plan a trip to Kyoto'], 'two chats, newest first');
    await expectCurrent(page, 'Bake sourdough bread');

    // Switch chats from the sidebar.
    await chatEntry(page, 'Plan a trip to Kyoto').click();
    await poll(async () => (await textOf(lastUser(page))) === 'Plan a trip to Kyoto', { message: 'the first chat to open' });
    assert.equal(await textOf(lastAssistant(page)), 'Echo: Plan a trip to Kyoto');
    assert.equal(await articles(page, 'user').count(), 1);
    await expectCurrent(page, 'Plan a trip to Kyoto');

    // Rename.
    await chatAction(page, 'Rename chat');
    const rename = page.getByRole('dialog', byName('Rename chat'));
    await rename.waitFor({ state: 'visible' });
    const title = rename.getByRole('textbox', byName('Title'));
    assert.equal(await title.inputValue(), 'Plan a trip to Kyoto', 'the rename field starts with the current title');
    await title.fill('Kyoto itinerary');
    await rename.getByRole('button', byName('Save')).click();
    await rename.waitFor({ state: 'hidden' });
    await poll(async () => (await titles(page)).includes('Kyoto itinerary'), { message: 'the new title in the list' });
    assert.ok(!(await titles(page)).includes('Plan a trip to Kyoto'), 'the old title is gone');
    assert.equal((await titles(page)).length, 2);
    await expectCurrent(page, 'Kyoto itinerary');

    // Delete: Cancel keeps the chat.
    await chatAction(page, 'Delete chat');
    const del = page.getByRole('dialog', byName('Delete chat'));
    await del.waitFor({ state: 'visible' });
    await del.getByRole('button', byName('Cancel')).click();
    await del.waitFor({ state: 'hidden' });
    assert.deepEqual((await titles(page)).sort(), ['Bake sourdough bread', 'Kyoto itinerary']);
    assert.equal(await textOf(lastUser(page)), 'Plan a trip to Kyoto', 'Cancel leaves the conversation alone');

    // Delete for real.
    await chatAction(page, 'Delete chat');
    await del.waitFor({ state: 'visible' });
    await del.getByRole('button', byName('Delete')).click();
    await del.waitFor({ state: 'hidden' });
    await expectTitles(page, ['Bake sourdough bread'], 'only the other chat is left');
    assert.ok(
      !(await page.getByRole('log', byName('Conversation')).innerText()).includes('Plan a trip to Kyoto'),
      'the deleted conversation is no longer shown',
    );

    // And it stays deleted.
    await reload(page);
    await expectTitles(page, ['Bake sourdough bread'], 'the deletion persisted');
  });
});

test('reload restores chats, the active chat and a half-typed draft; storage is versioned per session', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 'Alpha topic');
    await newChat(page);
    await chat(page, 'Beta topic');
    await chatEntry(page, 'Alpha topic').click();
    await poll(async () => (await textOf(lastUser(page))) === 'Alpha topic', { message: 'chat "Alpha topic" to open' });

    const draft = 'half-typed draft, not sent';
    await messageBox(page).fill(draft);
    // Give a debounced draft save the time to happen (it is fine if drafts are saved on unload instead).
    await poll(
      async () => page.evaluate((d) => JSON.stringify({ ...localStorage, ...sessionStorage }).includes(d), draft),
      { timeout: 3_000, message: 'draft saved' },
    ).catch(() => {});

    const listBefore = await titles(page);
    assert.deepEqual(listBefore, ['Beta topic', 'Alpha topic']);
    await reload(page);

    await expectTitles(page, listBefore, 'the same chats after reload');
    await expectCurrent(page, 'Alpha topic', 'the active chat is restored');
    await poll(async () => (await textOf(lastUser(page))) === 'Alpha topic', { message: 'the active chat messages' });
    assert.equal(await textOf(lastAssistant(page)), 'Echo: Alpha topic');
    assert.equal(await waitForStatus(lastAssistant(page), 'complete'), 'complete');
    assert.equal(await messageBox(page).inputValue(), draft, 'the draft is restored');

    // Storage layout.
    const entries = await localStorageEntries(page);
    const keys = Object.keys(entries);
    for (const k of keys) assert.ok(k.startsWith('satori.'), `localStorage key ${JSON.stringify(k)} must start with "satori."`);
    for (const k of keys) {
      let record;
      assert.doesNotThrow(() => (record = JSON.parse(entries[k])), `record ${k} is JSON`);
      // A part of a chat's messages is a list, versioned by its chat's head record.
      const part = /^satori\.part\.(.+)\.(\d+)$/.exec(k);
      if (part) {
        assert.ok(Array.isArray(record), `record ${k} is a list of messages`);
        const head = JSON.parse(entries[`satori.session.${part[1]}`]);
        assert.ok(head.v === 2 && head.parts > Number(part[2]), `the head of ${k} names it`);
        continue;
      }
      assert.ok(record && typeof record === 'object' && !Array.isArray(record), `record ${k} is a JSON object`);
      assert.ok(Number.isInteger(record.v), `record ${k} has an integer schema version "v": ${entries[k].slice(0, 200)}`);
    }
    const holding = (text) => keys.filter((k) => entries[k].includes(text));
    const keyA = holding('Echo: Alpha topic');
    const keyB = holding('Echo: Beta topic');
    assert.equal(keyA.length, 1, `exactly one record holds chat A's messages: ${keyA}`);
    assert.equal(keyB.length, 1, `exactly one record holds chat B's messages: ${keyB}`);
    assert.notEqual(keyA[0], keyB[0], 'one key per session');
    const idA = /^satori\.part\.(.+)\.0$/.exec(keyA[0])?.[1];
    const idB = /^satori\.part\.(.+)\.0$/.exec(keyB[0])?.[1];
    assert.ok(idA && idB, `the messages are in the chats' first parts: ${keyA[0]}, ${keyB[0]}`);
    for (const id of [idA, idB]) assert.ok(keys.includes(`satori.session.${id}`), `chat ${id} has a head record`);
    const index = keys.filter((k) => k !== keyA[0] && k !== keyB[0] && entries[k].includes(idA) && entries[k].includes(idB));
    assert.ok(index.length >= 1, `an index record lists both sessions (keys: ${keys.join(', ')})`);
  });
});

test('the API key stays out of other storage records, request URLs, the page text and the console', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    const KEY = 'sk-e2e-SECRET-7f3a9c2d41';
    await setup(page, KEY);
    await chat(page, 'Key check');
    assert.equal(e2e.fake.chatRequests().at(-1).headers.authorization, `Bearer ${KEY}`, 'the key is used');
    await newChat(page);
    await chat(page, 'Second key check');
    await reload(page);
    await poll(async () => (await titles(page)).length === 2, { message: 'both chats after reload' });

    const entries = await localStorageEntries(page);
    const holders = Object.keys(entries).filter((k) => entries[k].includes(KEY));
    assert.ok(holders.length <= 1, `the key is stored in at most one record, found in: ${holders.join(', ')}`);
    for (const k of holders) {
      assert.ok(!entries[k].includes('Key check'), `the record holding the key (${k}) is not a chat record`);
    }
    const sessionHolders = await page.evaluate(
      (key) => Object.keys(sessionStorage).filter((k) => sessionStorage.getItem(k).includes(key)),
      KEY,
    );
    assert.ok(holders.length + sessionHolders.length <= 1, 'the key is not duplicated into sessionStorage');

    assert.ok(!app.requests.some((u) => u.includes(KEY)), 'no request URL carries the key');
    assert.ok(!e2e.fake.requests.some((r) => r.url.includes(KEY)), 'the API server saw no URL with the key');
    assert.ok(!page.url().includes(KEY), 'the page URL does not carry the key');
    assert.ok(!(await page.evaluate(() => document.body.innerText)).includes(KEY), 'the key is not shown as text');
    const leaks = app.consoleMessages.filter((m) => m.text.includes(KEY));
    assert.deepEqual(leaks, [], 'the key never appears in console output');
  });
});

test('full storage: a clear alert, the chat stays on screen, the stored copy is left intact', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 'Remember the order 4711');
    const key = await page.evaluate(() => Object.keys(localStorage).find((k) => k.startsWith('satori.session.')));
    const before = await page.evaluate((k) => localStorage.getItem(k), key);
    // Fill the rest of the quota with filler records (real localStorage, real QuotaExceededError).
    await page.evaluate(() => {
      let size = 1 << 20;
      for (let i = 0; size >= 16; i++) {
        try { localStorage.setItem(`filler.${i}`, 'x'.repeat(size)); } catch { size = size >> 1; }
      }
    });
    await sendMessage(page, 'And the amount 99.50');
    await waitIdle(page);
    const alert = page.getByRole('alert');
    await alert.waitFor({ state: 'visible' });
    assert.match(await alert.innerText(), /storage is full/i);
    // Nothing is lost on screen, and the old stored copy was not damaged by the failed write.
    assert.equal(await textOf(lastUser(page)), 'And the amount 99.50');
    assert.equal(await textOf(articles(page, 'user').first()), 'Remember the order 4711');
    const after = await page.evaluate((k) => localStorage.getItem(k), key);
    assert.equal(after, before, 'the previously stored session record is unchanged');
    await page.evaluate(() => { for (const k of Object.keys(localStorage)) if (k.startsWith('filler.')) localStorage.removeItem(k); });
  });
});

test('a corrupt session record: a clear alert, the record is left untouched, the app still works', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 'First chat');
    const key = await page.evaluate(() => Object.keys(localStorage).find((k) => k.startsWith('satori.session.')));
    await page.evaluate((k) => localStorage.setItem(k, '{"v":1, "id": broken'), key);
    await reload(page);
    const alert = page.getByRole('alert');
    await alert.waitFor({ state: 'visible' });
    assert.match(await alert.innerText(), /could not be read/i);
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), key), '{"v":1, "id": broken', 'the corrupt record is kept for recovery');
    // A fresh chat works.
    await chat(page, 'Still working?');
    assert.equal(await textOf(lastAssistant(page)), 'Echo: Still working?');
  });
});

// See: #9
test('an unreadable or newer chat list is kept byte for byte before a rebuilt one replaces it', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 'Kept chat');
    for (const original of ['{"v":1,"sessions":[{"id": broken', '{"v":99,"sessions":[],"future":true}']) {
      await page.evaluate((text) => {
        for (const k of Object.keys(localStorage)) if (k.startsWith('satori.backup.')) localStorage.removeItem(k);
        localStorage.setItem('satori.index', text);
      }, original);
      await reload(page);
      const alert = page.getByRole('alert').filter({ hasText: 'chat list could not be read' });
      await alert.waitFor();
      assert.match(await alert.innerText(), /kept in browser storage as “satori\.backup\.index\.\d+”/);
      const backups = await page.evaluate(() =>
        Object.keys(localStorage).filter((k) => k.startsWith('satori.backup.index.')).map((k) => localStorage.getItem(k)),
      );
      assert.deepEqual(backups, [original], 'the original is kept exactly');
      // The rebuilt list still has the chat, and the app goes on.
      assert.deepEqual(await titles(page), ['Kept chat']);
    }
  });
});

test('the saved API key still goes with requests after a reload, and only to its server', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page, 'sk-e2e-reload-7c1');
    await reload(page);
    e2e.fake.reset();
    await chat(page, 'After reload');
    const req = e2e.fake.chatRequests().at(-1);
    assert.equal(req.headers.authorization, 'Bearer sk-e2e-reload-7c1');
    // Point the app elsewhere by hand-editing the settings record: the key must not follow.
    const other = await startFakeLlm();
    try {
      await page.evaluate((url) => {
        const s = JSON.parse(localStorage.getItem('satori.settings'));
        s.base_url = url;
        localStorage.setItem('satori.settings', JSON.stringify(s));
      }, other.baseUrl);
      await reload(page);
      await chat(page, 'To another server');
      const sent = other.chatRequests().at(-1);
      assert.ok(sent, 'the request went to the other server');
      assert.equal(sent.headers.authorization, undefined, 'the key is not sent to a server it was not saved for');
    } finally {
      await other.close();
    }
  });
});

test('"New chat" on an untouched chat does not pile up empty chats', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 'Something to keep');
    await newChat(page);
    await newChatButton(page).click();
    await newChatButton(page).click();
    await poll(async () => (await titles(page)).length === 2, { message: 'two entries in the list' });
    await sleep(300);
    assert.deepEqual(await titles(page), ['Untitled chat', 'Something to keep']);
  });
});

test('full storage: leaving an unsaved chat asks first (export it, or leave without saving); an unsaved chat stays listed', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 'First chat');
    await newChat(page);
    await chat(page, 'Second chat');
    await page.evaluate(() => {
      let size = 1 << 20;
      for (let i = 0; size >= 16; i++) {
        try { localStorage.setItem(`filler.${i}`, 'x'.repeat(size)); } catch { size = size >> 1; }
      }
    });
    // Longer than packing the other chats could make room for.
    const unsaved = `Unsaved words ${'x'.repeat(30000)}`;
    await chat(page, unsaved);
    const alert = page.getByRole('alert');
    await alert.filter({ hasText: /storage is full/i }).waitFor();
    // Leaving is asked about; the chat stays on screen.
    await chatEntry(page, 'First chat').click();
    await alert.filter({ hasText: /latest changes are not saved/ }).waitFor();
    assert.equal(await textOf(lastUser(page)), unsaved, 'still on the unsaved chat');
    await expectCurrent(page, 'Second chat');
    // Export it as it is on screen.
    await alert.getByRole('button', byName('Export this chat')).click();
    const dialog = page.getByRole('dialog', byName('Export chat'));
    const [file] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', byName('Download JSON')).click()]);
    const exported = fs.readFileSync(await file.path(), 'utf8');
    assert.ok(exported.includes('Unsaved words'), 'the unsaved messages are in the file');
    // Then leave without saving.
    await chatEntry(page, 'First chat').click();
    await alert.getByRole('button', byName('Leave without saving')).click();
    await expectCurrent(page, 'First chat');
    assert.equal(await textOf(lastUser(page)), 'First chat');
    // A new chat that cannot be saved is still listed.
    await newChat(page);
    await chat(page, 'Brand new');
    await poll(async () => (await titles(page)).includes('Brand new'), { message: 'the unsaved chat in the list' });
    await page.evaluate(() => { for (const k of Object.keys(localStorage)) if (k.startsWith('filler.')) localStorage.removeItem(k); });
  });
});

test('Settings shows how much storage Satori uses and whether the browser keeps it; asking for persistent storage says the answer', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 'Something worth keeping');
    // A large stored chat record, so the figure is not trivially zero.
    await page.evaluate(() => localStorage.setItem('satori.session.big', JSON.stringify({ v: 1, id: 'big', created_at: 1, updated_at: 1, messages: [], title: 'x'.repeat(1_500_000) })));
    const used = await page.evaluate(() => {
      let n = 0;
      for (const k of Object.keys(localStorage)) if (k.startsWith('satori.')) n += k.length + localStorage.getItem(k).length;
      return n;
    });
    await page.getByRole('button', byName('Settings')).click();
    const dialog = page.getByRole('dialog', byName('Settings'));
    const group = dialog.getByRole('group', byName('Storage'));
    await group.waitFor();
    assert.match(await group.innerText(), new RegExp(`take ${(used / 1e6).toFixed(1).replace('.', '\\.')} of the about 5 MB`));
    const kept = await page.evaluate(() => navigator.storage.persisted());
    await poll(async () => (kept ? /keeps this data until you clear it/ : /may clear this data/).test(await group.innerText()), { message: 'whether the data is kept' });
    if (!kept) {
      await group.getByRole('button', byName('Ask the browser to keep my chats')).click();
      await poll(async () => /^(Granted|Refused)/.test(await group.getByRole('status').innerText()), { message: "the browser's answer" });
    }
  });
});

test('a reply that ends after its chat was left, when that chat\'s record has become unreadable: the alert says so and the record is left as it is', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 'Other chat');
    await newChat(page);
    e2e.fake.enqueue({ chunks: Array.from({ length: 60 }, (_, i) => `word${i} `), delayMs: 100 });
    await sendMessage(page, 'Slow one');
    await poll(async () => (await textOf(lastAssistant(page))).includes('word3'), { message: 'the reply streaming' });
    // In one task: the record becomes unreadable, then the user opens the other chat.
    const key = await page.evaluate(() => {
      const k = `satori.session.${JSON.parse(localStorage.getItem('satori.index')).active}`;
      localStorage.setItem(k, '{"v":1,"broken');
      [...document.querySelectorAll('nav[aria-label="Chats"] li button')].find((b) => b.innerText.trim() === 'Other chat').click();
      return k;
    });
    const alert = page.getByRole('alert').filter({ hasText: /ended after you left that chat, but it could not be added/ });
    await alert.waitFor();
    assert.match(await alert.innerText(), /A reply in “Slow one” ended after you left that chat, but it could not be added to it \(record is not valid/);
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), key), '{"v":1,"broken', 'the record is untouched');
  });
});

test('an unreadable saved draft is kept under a backup key before the first keystroke replaces it', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 'A chat with a draft');
    const id = await page.evaluate(() => JSON.parse(localStorage.getItem('satori.index')).active);
    await page.evaluate((id) => localStorage.setItem(`satori.draft.${id}`, '{"v":1,"text":'), id);
    await reload(page);
    await messageBox(page).pressSequentially('new');
    const alert = page.getByRole('alert').filter({ hasText: /saved draft could not be read/ });
    await alert.waitFor();
    const backup = (await alert.innerText()).match(/storage key (satori\.backup\.draft\.\d+)/)?.[1];
    assert.ok(backup, await alert.innerText());
    const all = await localStorageEntries(page);
    assert.equal(all[backup], '{"v":1,"text":', 'the unreadable draft is kept byte for byte');
    await poll(async () => JSON.parse((await localStorageEntries(page))[`satori.draft.${id}`]).text === 'new', { message: 'the new draft saved' });
  });
});

test('Delete chat deletes the chat it names, even if another chat was opened while the dialog was loading', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 'Chat A');
    await newChat(page);
    await chat(page, 'Chat B');
    await chatEntry(page, 'Chat A').click();
    await expectCurrent(page, 'Chat A');
    await reload(page); // the dialogs module is not loaded any more
    await page.route(/\/dialogs-[0-9a-f]+\//, async (route) => {
      await sleep(800);
      await route.continue();
    });
    await chatAction(page, 'Delete chat');
    await chatEntry(page, 'Chat B').click(); // while the dialog is still loading
    const del = page.getByRole('dialog', byName('Delete chat'));
    await del.waitFor({ state: 'visible' });
    assert.match(await del.innerText(), /Delete “Chat A”\?/);
    await del.getByRole('button', byName('Delete')).click();
    await del.waitFor({ state: 'hidden' });
    await expectTitles(page, ['Chat B'], 'Chat A is gone, Chat B stays');
    await expectCurrent(page, 'Chat B');
    assert.equal(await textOf(lastUser(page)), 'Chat B');
  });
});

test('a saved chat opens at its latest message, after a reload and when chosen in the list', async (t) => {
  await e2e.open(t, async ({ page }) => {
    const records = { 'satori.index': JSON.stringify({ v: 1, sessions: [], active: 'long-a' }) };
    const index = JSON.parse(records['satori.index']);
    for (const id of ['long-a', 'long-b']) {
      const messages = [];
      let parent;
      for (let i = 0; i < 80; i++) {
        const m = { id: `${id}-${i}`, role: i % 2 ? 'assistant' : 'user', content: `${id} message ${i}\n\n- a list item\n- another one\n\n**bold** text that takes a few lines of markdown.`, status: 'complete', created_at: 1764000000000 + i };
        if (parent) m.parent = parent;
        parent = m.id;
        messages.push(m);
      }
      records[`satori.session.${id}`] = JSON.stringify({ v: 1, id, title: `Long ${id.slice(-1)}`, role: '', created_at: 1764000000000, updated_at: 1764000000000 + (id === 'long-a' ? 2 : 1), messages, leaf: parent });
      index.sessions.push({ id, title: `Long ${id.slice(-1)}`, updated_at: 1764000000000 + (id === 'long-a' ? 2 : 1) });
    }
    records['satori.index'] = JSON.stringify(index);
    await page.evaluate((r) => { for (const [k, v] of Object.entries(r)) localStorage.setItem(k, v); }, records);
    const lastInView = (text) => page.evaluate((text) => {
      const log = document.querySelector('[role="log"]');
      const last = [...log.querySelectorAll('article')].pop();
      if (!last || !last.innerText.includes(text)) return false;
      const a = last.getBoundingClientRect();
      const b = log.getBoundingClientRect();
      return a.bottom > b.top && a.top < b.bottom && log.scrollHeight > log.clientHeight * 2;
    }, text);
    await reload(page);
    await poll(() => lastInView('long-a message 79'), { message: 'the latest message of the open chat in view after a reload' });
    await chatEntry(page, 'Long b').click();
    await poll(() => lastInView('long-b message 79'), { message: 'the latest message in view when another chat is chosen' });
    // Still there a moment later (rendered markdown changes heights).
    await sleep(500);
    assert.ok(await lastInView('long-b message 79'));
  });
});

test('part records a crash left behind are swept a minute after they were first seen; a chat\'s own parts, parts of a record that cannot be read, and a record written anew stay', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    await setup(page);
    await sendMessage(page, 'Order 4711 ships to Kyoto');
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    const chat = await storedChat(page);
    // What a crash between a save's writes leaves: parts of a chat whose head never came, a part
    // beyond those the open chat's head declares, and parts of a chat since packed (a packed
    // record names none).
    const lost = 'satori.part.lost-chat.0';
    const beyond = `satori.part.${chat.id}.7`;
    const packed = 'satori.part.packed-chat.0';
    // Records the sweep cannot read: a head whose numbers disagree, and a newer version's head.
    // Any part may be theirs: none is touched.
    const theirs = ['satori.part.odd-head.0', 'satori.part.odd-head.3', 'satori.part.newer-head.0'];
    await page.evaluate(([a, b, c, d]) => {
      localStorage.setItem(a, '[{"content":"lost"}]');
      localStorage.setItem(b, '[]');
      localStorage.setItem('satori.session.packed-chat', 'z1:AAAA');
      localStorage.setItem(c, '[{"content":"packed"}]');
      localStorage.setItem('satori.session.odd-head', '{"v":2,"parts":1,"count":40,"id":"odd-head"}');
      localStorage.setItem('satori.session.newer-head', '{"v":3,"parts":9,"count":300,"id":"newer-head"}');
      for (const k of d) localStorage.setItem(k, '[{"content":"theirs"}]');
    }, [lost, beyond, packed, theirs]);
    const stored = (key) => page.evaluate((k) => localStorage.getItem(k), key);
    const noted = async () => JSON.parse((await stored('satori.sweep')) ?? '[]');
    // The note aged by `ms`, as the clock would.
    const age = (ms) => page.evaluate((ms) => {
      const note = JSON.parse(localStorage.getItem('satori.sweep'));
      for (const n of note) n.at -= ms;
      localStorage.setItem('satori.sweep', JSON.stringify(note));
    }, ms);
    // Counts the sweep's writes of its note in this page: a look that changed nothing still
    // writes it, so a test can wait for the look to have happened.
    await page.addInitScript(() => {
      const set = Storage.prototype.setItem;
      window.sweepWrites = 0;
      Storage.prototype.setItem = function (k, v) {
        if (k === 'satori.sweep') window.sweepWrites += 1;
        return set.call(this, k, v);
      };
    });
    // The turns module arrives when the user types: it looks, and notes what no head names.
    const look = async () => {
      await reload(page);
      await messageBox(page).fill('h');
      await poll(() => page.evaluate(() => window.sweepWrites > 0), { message: 'the sweep looked' });
    };
    const allStored = async () => {
      for (const k of [lost, beyond, packed, ...theirs]) assert.notEqual(await stored(k), null, `${k} is still stored`);
    };
    await look();
    await poll(async () => (await noted()).length === 3, { message: 'the leftovers noted' });
    assert.deepEqual((await noted()).map((n) => n.key).sort(), [beyond, lost, packed].sort());
    await allStored();
    // Half a minute later: too soon, nothing goes, and each keeps the time it was first noted.
    const first = (await noted()).map((n) => n.at);
    await age(30_000);
    await look();
    await allStored();
    assert.deepEqual((await noted()).map((n) => n.at), first.map((at) => at - 30_000));
    // A minute after the first look, with one leftover written anew meanwhile (same length, other
    // bytes): only the unchanged ones go.
    await age(31_000);
    await page.evaluate((k) => localStorage.setItem(k, '[{"content":"LOST"}]'), lost);
    await look();
    await poll(async () => (await stored(beyond)) === null && (await stored(packed)) === null,
      { message: 'the unchanged leftovers removed' });
    assert.equal(await stored(lost), '[{"content":"LOST"}]');
    assert.deepEqual((await noted()).map((n) => n.key), [lost], 'the rewritten one noted afresh');
    for (const k of theirs) assert.equal(await stored(k), '[{"content":"theirs"}]', `${k} left alone`);
    // The chat itself is whole: every message, stored and on screen.
    const after = await storedChat(page, chat.id);
    assert.deepEqual(after.messages.map((m) => m.content), chat.messages.map((m) => m.content));
    assert.equal(await textOf(lastUser(page)), 'Order 4711 ships to Kyoto');
  });
});

test('with storage full, the sweep keeps its note in the page and removes the leftovers a minute later', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    await setup(page);
    await chat(page, 'Order 4711 ships to Kyoto');
    const lost = 'satori.part.lost-chat.0';
    await page.evaluate((k) => {
      localStorage.setItem(k, JSON.stringify([{ content: 'x'.repeat(100_000) }]));
      // An older note, shorter than the one the sweep will want to write: it must not stand in
      // for the note the page keeps.
      localStorage.setItem('satori.sweep', '[]');
      // Fill the rest of the quota (real localStorage, real QuotaExceededError).
      let size = 1 << 20;
      for (let i = 0; size >= 16; i++) {
        try { localStorage.setItem(`filler.${i}`, 'x'.repeat(size)); } catch { size = size >> 1; }
      }
    }, lost);
    // The page's clock is controlled from here (Date and timers), so "a minute later" is exact.
    await page.clock.install();
    await reload(page);
    await messageBox(page).fill('h');
    const stored = (key) => page.evaluate((k) => localStorage.getItem(k), key);
    await sleep(1_500);
    assert.equal(await stored('satori.sweep'), null, 'no room for the note; the older one removed');
    assert.notEqual(await stored(lost), null, 'first look: nothing removed');
    await page.clock.fastForward(30_000);
    await sleep(500);
    assert.notEqual(await stored(lost), null, 'half a minute later: nothing removed');
    await page.clock.fastForward(32_000);
    await poll(async () => (await stored(lost)) === null, { message: 'the leftover removed a minute later' });
    assert.equal(await stored('satori.sweep'), null, 'nothing left to note');
    assert.equal(await textOf(lastUser(page)), 'Order 4711 ships to Kyoto');
    await page.evaluate(() => { for (const k of Object.keys(localStorage)) if (k.startsWith('filler.')) localStorage.removeItem(k); });
  });
});
