// Sync between devices through a real WebDAV server (WsgiDAV, tests/e2e/support/dav.mjs): each
// device is a browser context of its own (its own localStorage and IndexedDB), set up in
// Settings → Sync as a person would. What one device writes reaches the other, a deletion holds,
// changes made while the server is down wait (across a reload) and go when it is back, two writes
// at once keep both, a wrong passphrase writes nothing, a damaged object deletes nothing, and no
// byte on the server reads as a chat.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useApp } from './support/app.mjs';
import { startDav } from './support/dav.mjs';
import { freePort } from './support/env.mjs';
import {
  byName,
  configure,
  openApp,
  reload,
  sendMessage,
  waitIdle,
  waitForStatus,
  lastAssistant,
  articles,
  textOf,
  chatList,
  chatEntry,
  poll,
  saveArtifacts,
  storedChat,
  openPrompts,
  importPrompts,
  chatAction,
} from './support/browser.mjs';

const e2e = useApp();
const TEMPLATE = `shipping:
  version: 1
  description: Quokka Freight shipping desk
  system: |
    You answer questions about parcels sent with Quokka Freight.
`;
const USER = 'ann';
const PASSWORD = 'pw 密码';
const PASSPHRASE = 'correct horse 电池 staple';
const API_KEY = 'sk-sync-never-leaves-4f2a';

let root;
let port;
let dav;

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-dav-'));
  fs.mkdirSync(path.join(root, 'files'));
  port = await freePort();
  dav = await startDav({ root: path.join(root, 'files'), port, user: USER, password: PASSWORD, log: path.join(root, 'log.jsonl') });
});

after(async () => {
  await dav?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** Every file the server keeps under `folder`: name → bytes. */
function serverFiles(folder) {
  const dir = path.join(root, 'files', folder);
  if (!fs.existsSync(dir)) return {};
  return Object.fromEntries(fs.readdirSync(dir).map((n) => [n, fs.readFileSync(path.join(dir, n))]));
}

/** A device: a fresh browser context with the fake model set up. */
async function device(t, name) {
  const app = await openApp(e2e.browser, e2e.web.url);
  app.name = name;
  await configure(app.page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: API_KEY });
  return app;
}

const syncStatus = (page) => page.getByRole('status', byName('Sync status'));

/** Settings → Sync: type the setup and "Start syncing"; resolves to the status line's text once it settles. */
async function startSyncing(page, folder, { passphrase = PASSPHRASE } = {}) {
  await page.getByRole('button', byName('Settings')).first().click();
  const dialog = page.getByRole('dialog', byName('Settings'));
  await dialog.waitFor({ state: 'visible' });
  await dialog.getByLabel('WebDAV URL', { exact: true }).fill(`${dav.url}${folder}/`);
  await dialog.getByLabel('User name', { exact: true }).fill(USER);
  await dialog.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await dialog.getByLabel('Encryption passphrase', { exact: true }).fill(passphrase);
  await dialog.getByRole('button', byName('Start syncing')).click();
  return settled(page);
}

/** The status line once it no longer says a pass is under way. */
async function settled(page, { timeout = 30_000 } = {}) {
  let text = '';
  await poll(
    async () => {
      text = (await syncStatus(page).textContent()) ?? '';
      // A step under way ends with "…" (Connecting…, Syncing…, Changing the passphrase…).
      return text !== '' && !text.endsWith('…');
    },
    { timeout, message: 'the sync status to settle' },
  );
  return text;
}

/** Settings → Sync → "Sync now"; the status it ends with. The dialog stays open. */
async function syncNow(page) {
  const dialog = page.getByRole('dialog', byName('Settings'));
  if (!(await dialog.isVisible())) {
    await page.getByRole('button', byName('Settings')).first().click();
    await dialog.waitFor({ state: 'visible' });
  }
  await dialog.getByRole('button', byName('Sync now')).click();
  await poll(async () => !(await dialog.getByRole('button', byName('Sync now')).isDisabled()), { timeout: 30_000, message: '"Sync now" to finish' });
  return settled(page);
}

async function closeSettings(page) {
  const dialog = page.getByRole('dialog', byName('Settings'));
  if (await dialog.isVisible()) {
    await dialog.getByRole('button', byName('Cancel')).click();
    await dialog.waitFor({ state: 'hidden' });
  }
}

/** Prompts → "Import prompts" of TEMPLATE. */
async function addTemplate(page) {
  const prompts = await openPrompts(page);
  await importPrompts(prompts, 'shipping.yaml', TEMPLATE);
  await prompts.getByRole('status').filter({ hasText: 'Imported 1 prompt' }).waitFor();
  await prompts.getByRole('button', byName('Close')).click();
}

async function say(page, text) {
  await sendMessage(page, text);
  await waitIdle(page);
  await waitForStatus(lastAssistant(page), 'complete');
}

async function newChat(page, text) {
  await page.getByRole('button', byName('New chat')).first().click();
  await say(page, text);
}

const titles = async (page) => (await chatList(page)).map((c) => c.title).sort();
const userTexts = async (page) => Promise.all((await articles(page, 'user').all()).map((a) => textOf(a)));

/** Runs `fn` with devices named `names`; on failure keeps their screenshots. */
async function withDevices(t, names, fn) {
  const apps = [];
  try {
    for (const n of names) apps.push(await device(t, n));
    await fn(...apps);
  } catch (err) {
    for (const a of apps) await saveArtifacts(a, `${t.name}-${a.name}`).catch(() => {});
    throw err;
  } finally {
    for (const a of apps) await a.close();
  }
}

test('sync: what A writes B gets, B\'s reply reaches A, a wrong passphrase writes nothing, a damaged object deletes nothing, the server holds no plaintext', async (t) => {
  await withDevices(t, ['A', 'B', 'C'], async (a, b, c) => {
    await say(a.page, 'Order #4417 costs 129.50 EUR');
    const title = (await titles(a.page))[0];
    await addTemplate(a.page);
    assert.match(await startSyncing(a.page, 'one'), /^Synced at /);
    await closeSettings(a.page);
    const files = serverFiles('one');
    assert.ok('satori-sync.json' in files, 'the account object is on the server');
    assert.equal(Object.keys(files).length, 4, 'the account, one chat, the templates and a note of the write log');
    assert.ok('satori-sync-log-1' in files, 'the write log\'s first note');

    // B had nothing: it downloads first and uploads no emptiness over A.
    assert.match(await startSyncing(b.page, 'one'), /^Synced at /);
    await closeSettings(b.page);
    await poll(async () => (await titles(b.page)).includes(title), { message: `B lists "${title}"` });
    await chatEntry(b.page, title).click();
    assert.deepEqual(await userTexts(b.page), ['Order #4417 costs 129.50 EUR']);
    const bPrompts = await openPrompts(b.page);
    await bPrompts.getByRole('button', { name: /^shipping/ }).waitFor();
    await bPrompts.getByRole('button', byName('Close')).click();

    // B answers in the same chat: its pass follows the change by itself (no button).
    const rewrites = () => dav.log().filter((e) => e.method === 'PUT' && e.status < 300 && e.if_match).length;
    const rewritten = rewrites();
    await say(b.page, 'Ship it to Lyon, ref ZX-81');
    await poll(() => rewrites() > rewritten, {
      timeout: 20_000,
      message: 'B to write the chat back after its change',
    });
    // A takes it in by itself when its page is back online: from the folder's write log, with
    // no listing of the folder.
    const listings = () => dav.log().filter((e) => e.method === 'PROPFIND').length;
    const listed = listings();
    await a.page.evaluate(() => window.dispatchEvent(new Event('online')));
    await poll(async () => (await userTexts(a.page)).length === 2, { message: 'A shows B\'s message' });
    assert.equal(listings(), listed, 'A did not list the folder');
    assert.deepEqual(await userTexts(a.page), ['Order #4417 costs 129.50 EUR', 'Ship it to Lyon, ref ZX-81']);

    // C types another passphrase: refused, nothing written, nothing kept.
    const before = serverFiles('one');
    const refused = await startSyncing(c.page, 'one', { passphrase: 'not the one' });
    assert.match(refused, /passphrase is not the one/);
    assert.deepEqual(serverFiles('one'), before, 'the server is unchanged');
    assert.equal(await c.page.evaluate(() => localStorage.getItem('satori.sync')), null, 'C keeps no setup');
    await closeSettings(c.page);

    // No byte on the server reads as a chat, a title, a model or the API key.
    for (const [name, bytes] of Object.entries(serverFiles('one'))) {
      const text = bytes.toString('latin1') + bytes.toString('utf8');
      for (const secret of ['4417', '129.50', 'Lyon', 'ZX-81', title.slice(0, 10), 'fake-small', API_KEY, PASSPHRASE, 'Order', 'Quokka', 'shipping']) {
        assert.ok(!text.includes(secret), `${name} does not hold "${secret}"`);
      }
    }

    // Damaged objects (the chat's and the templates'): reported, and A's chat is untouched.
    for (const name of Object.keys(serverFiles('one')).filter((n) => n !== 'satori-sync.json')) {
      const file = path.join(root, 'files', 'one', name);
      const bytes = fs.readFileSync(file);
      bytes[bytes.length - 5] ^= 0xff;
      // Replaced as a whole (a new file), as a server or a tool rewriting it would.
      fs.writeFileSync(`${file}.new`, bytes);
      fs.renameSync(`${file}.new`, file);
    }
    const damaged = await syncNow(a.page);
    assert.match(damaged, /2 record\(s\) on the server could not be opened/);
    assert.match(await a.page.evaluate(() => localStorage.getItem('satori.prompts')), /Quokka Freight/, 'A keeps its template');
    await closeSettings(a.page);
    assert.deepEqual(await titles(a.page), [title]);
    assert.deepEqual(await userTexts(a.page), ['Order #4417 costs 129.50 EUR', 'Ship it to Lyon, ref ZX-81']);

    // "Stop syncing" on B: the setup is forgotten, and B's next chat goes nowhere.
    await b.page.getByRole('button', byName('Settings')).first().click();
    const dialog = b.page.getByRole('dialog', byName('Settings'));
    await dialog.getByRole('button', byName('Stop syncing')).click();
    await poll(async () => /^Sync is off/.test((await syncStatus(b.page).textContent()) ?? ''), { message: 'B says sync is off' });
    assert.ok(await dialog.getByRole('button', byName('Start syncing')).isVisible(), 'Start syncing is offered again');
    await closeSettings(b.page);
    assert.equal(await b.page.evaluate(() => localStorage.getItem('satori.sync')), null);
    const toServer = () => b.requests.filter((u) => u.startsWith(dav.url)).length;
    const requests = toServer();
    await newChat(b.page, 'A chat B keeps to itself');
    await b.page.waitForTimeout(6_000); // longer than a pass takes to follow a change
    assert.equal(toServer(), requests, 'B sent nothing after Stop syncing');
  });
});

test('sync: with the server down A deletes a chat and B writes in another (and reloads); back up, both hold the deletion and the message; two writes at once keep both', async (t) => {
  await withDevices(t, ['A', 'B'], async (a, b) => {
    await say(a.page, 'Plan the Kyoto trip');
    await newChat(a.page, 'Bake sourdough bread');
    assert.match(await startSyncing(a.page, 'two'), /^Synced at /);
    await closeSettings(a.page);
    assert.match(await startSyncing(b.page, 'two'), /^Synced at /);
    await closeSettings(b.page);
    await poll(async () => (await titles(b.page)).length === 2, { message: 'B lists both chats' });
    const [bread, kyoto] = await titles(a.page);
    assert.match(bread, /sourdough/);

    await dav.stop();
    // A deletes the bread chat; B writes in the Kyoto chat and reloads.
    await chatEntry(a.page, bread).click();
    await chatAction(a.page, 'Delete chat');
    const del = a.page.getByRole('dialog', byName('Delete chat'));
    await del.getByRole('button', byName('Delete')).click();
    await del.waitFor({ state: 'hidden' });
    await chatEntry(b.page, kyoto).click();
    await say(b.page, 'Add a day in Nara');
    assert.match(await syncNow(b.page), /^Offline: 1 change\(s\) waiting/);
    await closeSettings(b.page);
    await reload(b.page);
    assert.match(await syncNow(a.page), /^Offline: 1 change\(s\) waiting/);
    await closeSettings(a.page);

    dav = await startDav({ root: path.join(root, 'files'), port, user: USER, password: PASSWORD, log: path.join(root, 'log.jsonl') });
    assert.match(await syncNow(b.page), /^Synced at /);
    assert.match(await syncNow(a.page), /^Synced at /);
    assert.match(await syncNow(b.page), /^Synced at /);
    await closeSettings(a.page);
    await closeSettings(b.page);
    for (const d of [a, b]) {
      await poll(async () => (await titles(d.page)).length === 1, { message: `${d.name} holds the deletion` });
      assert.deepEqual(await titles(d.page), [kyoto]);
      await chatEntry(d.page, kyoto).click();
      await poll(async () => (await userTexts(d.page)).length === 2, { message: `${d.name} shows B's message` });
      assert.deepEqual(await userTexts(d.page), ['Plan the Kyoto trip', 'Add a day in Nara']);
    }

    // Both write the Kyoto chat at once: B's upload is held until A's has landed, so B's
    // conditional write meets a changed object (412), reads it, merges and writes again.
    let held = false;
    let release;
    const released = new Promise((r) => (release = r));
    await b.context.route(`${dav.url}two/**`, async (route) => {
      const name = route.request().url().split('/').pop();
      if (route.request().method() === 'PUT' && !held && name !== 'satori-sync.json') {
        held = true;
        await released;
      }
      await route.continue();
    });
    await say(b.page, 'Find a tea ceremony');
    await poll(() => held, { timeout: 20_000, message: 'B to start uploading its change by itself' });
    await say(a.page, 'Book the ryokan');
    assert.match(await syncNow(a.page), /^Synced at /);
    // B's pass, under way since its change, ends by itself: no "Sync now" on B.
    await b.page.getByRole('button', byName('Settings')).first().click();
    await poll(async () => (await syncStatus(b.page).textContent()) === 'Syncing…', { message: 'B\'s pass to be under way' });
    release();
    assert.match(await settled(b.page), /^Synced at /);
    assert.ok(dav.log().some((e) => e.method === 'PUT' && e.status === 412), 'the server refused one write (412): the race happened');
    assert.match(await syncNow(a.page), /^Synced at /);
    // Both questions answer the same reply: they are kept as two branches of the chat.
    const questions = async (page) => {
      const chat = await storedChat(page);
      return chat.messages.filter((m) => m.role === 'user').map((m) => m.content).sort();
    };
    const all = ['Add a day in Nara', 'Book the ryokan', 'Find a tea ceremony', 'Plan the Kyoto trip'];
    for (const d of [a, b]) {
      await closeSettings(d.page);
      await poll(async () => (await questions(d.page)).length === 4, { message: `${d.name} keeps all four questions` });
      assert.deepEqual(await questions(d.page), all);
    }

    // Someone removes the chats' objects from the folder (not Satori: it never does): A writes
    // them again on its next sync, and nothing here is taken as deleted.
    // (Its write log goes too; it is started again.)
    const records = () => Object.keys(serverFiles('two')).filter((n) => !n.startsWith('satori-sync-log-')).sort();
    const kept = records();
    for (const name of Object.keys(serverFiles('two'))) if (name !== 'satori-sync.json') fs.rmSync(path.join(root, 'files', 'two', name));
    assert.match(await syncNow(a.page), /^Synced at /);
    await closeSettings(a.page);
    assert.deepEqual(records(), kept, 'the same objects, written again');
    assert.ok(Object.keys(serverFiles('two')).includes('satori-sync-log-1'), 'the write log started again');
    assert.deepEqual(await questions(a.page), all);
  });
});

test('sync: "Change passphrase" seals everything anew, the other device stops until it types the new one, the old one opens nothing', async (t) => {
  await withDevices(t, ['A', 'B', 'C'], async (a, b, c) => {
    await say(a.page, 'Invoice 88-K for the Nara office');
    await addTemplate(a.page);
    assert.match(await startSyncing(a.page, 'three'), /^Synced at /);
    await closeSettings(a.page);
    assert.match(await startSyncing(b.page, 'three'), /^Synced at /);
    await closeSettings(b.page);
    // The sealed objects (the write log's objects are plain notes of names, not sealed anew).
    const sealed = () => Object.fromEntries(Object.entries(serverFiles('three')).filter(([n]) => !n.startsWith('satori-sync-log-')));
    const before = sealed();

    await a.page.getByRole('button', byName('Settings')).first().click();
    const dialog = a.page.getByRole('dialog', byName('Settings'));
    await dialog.getByLabel('New encryption passphrase', { exact: true }).fill('a new passphrase 新的');
    await dialog.getByRole('button', byName('Change passphrase')).click();
    assert.match(await settled(a.page), /^The passphrase was changed/);
    await closeSettings(a.page);
    const after = sealed();
    assert.equal(Object.keys(after).length, Object.keys(before).length, 'as many objects as before');
    for (const name of Object.keys(before)) {
      if (name !== 'satori-sync.json') assert.ok(!(name in after), `the old object ${name} is gone`);
    }
    assert.notDeepEqual(after['satori-sync.json'], before['satori-sync.json'], 'a new account object');

    // A new device with the new passphrase reads everything as it was sealed anew.
    assert.match(await startSyncing(c.page, 'three', { passphrase: 'a new passphrase 新的' }), /^Synced at /);
    await closeSettings(c.page);
    const title0 = (await titles(a.page))[0];
    await poll(async () => (await titles(c.page)).includes(title0), { message: 'C lists A\'s chat' });
    await chatEntry(c.page, title0).click();
    assert.deepEqual(await userTexts(c.page), ['Invoice 88-K for the Nara office']);
    assert.match(await c.page.evaluate(() => localStorage.getItem('satori.prompts')), /Quokka Freight/, 'C has the template');

    // B still has the old keys: it stops, writing nothing, and keeps its chats.
    const stopped = await syncNow(b.page);
    assert.match(stopped, /passphrase was changed on another device/);
    assert.deepEqual(sealed(), after, 'B wrote nothing');
    const dlgB = b.page.getByRole('dialog', byName('Settings'));
    await dlgB.getByRole('button', byName('Stop syncing')).click();
    await poll(async () => /^Sync is off/.test((await syncStatus(b.page).textContent()) ?? ''), { message: 'B stopped' });
    await closeSettings(b.page);
    assert.match(await startSyncing(b.page, 'three'), /passphrase is not the one/, 'the old passphrase opens nothing');
    await closeSettings(b.page);
    assert.match(await startSyncing(b.page, 'three', { passphrase: 'a new passphrase 新的' }), /^Synced at /);
    await closeSettings(b.page);

    // A's next message reaches B under the new passphrase.
    await say(a.page, 'Paid on 3 March');
    assert.match(await syncNow(a.page), /^Synced at /);
    assert.match(await syncNow(b.page), /^Synced at /);
    await closeSettings(b.page);
    const title = (await titles(a.page))[0];
    await chatEntry(b.page, title).click();
    await poll(async () => (await userTexts(b.page)).length === 2, { message: 'B shows both messages' });
    assert.deepEqual(await userTexts(b.page), ['Invoice 88-K for the Nara office', 'Paid on 3 March']);
  });
});
