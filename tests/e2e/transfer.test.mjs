// Export and import: everything survives a trip to a fresh browser profile, importing twice adds
// nothing, every hostile file is refused with a precise alert and storage stays byte-for-byte
// the same, "Undo import" restores what was there, the API key never leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useApp } from './support/app.mjs';
import { repoRoot } from './support/env.mjs';
import { writeZip, entryData } from './support/zip.mjs';
import {
  byName,
  configure,
  sendMessage,
  waitIdle,
  waitForStatus,
  lastAssistant,
  localStorageEntries,
  chatFrom,
  storedChat,
  writeChat,
  withApp,
  chatList,
  poll,
  chatAction,
} from './support/browser.mjs';

const e2e = useApp();
const FIXTURES = path.join(repoRoot, 'tests', 'fixtures', 'import');
const KEY = 'sk-transfer-secret-4242';

/** The chats, prompts and index of a page's storage, as parsed records (keys: chat ids). */
async function stored(page) {
  const all = await localStorageEntries(page);
  const chats = {};
  for (const k of Object.keys(all)) {
    if (k.startsWith('satori.session.')) chats[k.slice('satori.session.'.length)] = chatFrom(all, k.slice('satori.session.'.length));
  }
  return { all, chats, prompts: all['satori.prompts'] ? JSON.parse(all['satori.prompts']) : null };
}

/** Everything about a chat that must survive a round trip. */
function content(chat) {
  // The record's version and layout (a chat in parts says how many) are not the chat, nor is
  // where it came from (an imported chat is marked `foreign`: checked where it is imported).
  const { v, parts, count, foreign, ...rest } = chat;
  return rest;
}

async function download(page, click) {
  const [file] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: file.suggestedFilename(), text: fs.readFileSync(await file.path(), 'utf8') };
}

async function openImport(page) {
  await page.getByRole('button', byName('Import')).click();
  const dialog = page.getByRole('dialog', byName('Import chats'));
  await dialog.waitFor();
  return dialog;
}

async function choose(dialog, name, text) {
  await dialog.getByLabel('Import file').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
}

/** Two chats with a branch, a pinned message, a stored summary and a user prompt template. */
async function makeHistory(page) {
  e2e.fake.reset();
  await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: KEY });
  await sendMessage(page, 'Order ORD-77 — where is it? 订单在哪里？');
  await waitIdle(page);
  await waitForStatus(lastAssistant(page), 'complete');
  await page.getByRole('button', byName('Regenerate')).last().click();
  await waitIdle(page);
  await waitForStatus(lastAssistant(page), 'complete');
  await page.getByRole('button', byName('Pin')).first().click();
  // A stored summary, as the context pipeline keeps one.
  {
    const s = await storedChat(page);
    const user = s.messages.find((m) => m.role === 'user');
    s.summaries = [{ id: 'sum-1', through: user.id, covers: 2, text: 'Asked about ORD-77.', restored: ['ORD-77'], model: 'fake-small', created_at: 1764581400000 }];
    await writeChat(page, s);
  }
  await page.reload();
  await page.getByRole('textbox', byName('Message')).waitFor();
  await page.getByRole('button', byName('New chat')).click();
  await sendMessage(page, 'A second chat <b>with markup</b>');
  await waitIdle(page);
  await waitForStatus(lastAssistant(page), 'complete');
  // A user prompt template.
  await page.getByRole('button', byName('Prompts')).click();
  const prompts = page.getByRole('dialog', byName('Prompts'));
  await prompts.getByLabel('Import prompts').setInputFiles({
    name: 'team.yaml',
    mimeType: 'application/yaml',
    buffer: Buffer.from('support:\n  version: 2\n  description: Answers tickets.\n  system: You answer tickets for Acme.\n'),
  });
  await prompts.getByRole('status').filter({ hasText: 'Imported 1 prompt' }).waitFor();
  await prompts.getByRole('button', byName('Close')).click();
}

test('export all → a fresh profile → import: every chat, branch, summary and template is the same; twice adds nothing; the key never leaves', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await makeHistory(page);
    const before = await stored(page);
    assert.equal(Object.keys(before.chats).length, 2);
    const file = await download(page, () => page.getByRole('button', byName('Export all')).click());
    assert.match(file.name, /^satori-all-\d{4}-\d\d-\d\d-\d{4}\.json$/);
    assert.ok(!file.text.includes(KEY), 'the API key is not in the file');
    const parsed = JSON.parse(file.text);
    assert.equal(parsed.format, 'satori-export');
    assert.equal(parsed.version, 1);
    assert.match(parsed.chats[0].messages[0].created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    await withApp(e2e.browser, e2e.web.url, t, async ({ page: fresh }) => {
      let dialog = await openImport(fresh);
      await choose(dialog, file.name, file.text);
      const preview = dialog.getByRole('status');
      await preview.filter({ hasText: /2 chats to import/ }).waitFor();
      assert.match(await preview.innerText(), /2 chats to import \(\d+ messages\), 1 prompt template; the file's settings were not applied\./);
      await dialog.getByRole('button', byName('Import 2 chats')).click();
      await dialog.getByRole('status').filter({ hasText: /^Imported 2 chats/ }).waitFor();
      await dialog.getByRole('button', byName('Close')).click();
      const after = await stored(fresh);
      for (const [id, chat] of Object.entries(before.chats)) {
        assert.deepEqual(content(after.chats[id]), content(chat), `chat ${id} is identical`);
        assert.equal(after.chats[id].foreign, true, `chat ${id} is marked as imported (untrusted text for agent mode)`);
      }
      assert.deepEqual(after.prompts.templates, before.prompts.templates, 'the prompt templates are identical');
      assert.ok(!JSON.stringify(after.all).includes(KEY), 'no key arrived');
      // The chat list shows them.
      await poll(async () => (await chatList(fresh)).length >= 2, { message: 'the imported chats listed' });

      // The same file again: nothing to import, nothing written.
      const snapshot = (await stored(fresh)).all;
      dialog = await openImport(fresh);
      await choose(dialog, file.name, file.text);
      await dialog.getByRole('status').filter({ hasText: /0 chats to import, 2 skipped as identical/ }).waitFor();
      assert.equal(await dialog.getByRole('button', { name: /^Import \d/ }).count(), 0, 'nothing to confirm');
      await dialog.getByRole('button', byName('Close')).click();
      assert.deepEqual((await stored(fresh)).all, snapshot);
    });
  });
});

test('every hostile or broken file gets a precise alert, and storage stays byte-for-byte the same', async (t) => {
  const cases = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'cases.json'), 'utf8')).filter((c) => c.error);
  assert.ok(cases.length >= 30);
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    await sendMessage(page, 'Something to keep');
    await waitIdle(page);
    const dialog = await openImport(page);
    const before = await localStorageEntries(page);
    for (const c of cases) {
      await choose(dialog, c.file, fs.readFileSync(path.join(FIXTURES, c.file)));
      const alert = dialog.getByRole('alert');
      await poll(async () => (await alert.innerText()).includes(c.error), { message: `${c.file}: an alert with ${JSON.stringify(c.error)}`, timeout: 5000 });
      assert.match(await alert.innerText(), new RegExp(`^${c.file.replace('.', '\\.')} cannot be imported: .*Nothing was changed\\.$`));
      assert.deepEqual(await localStorageEntries(page), before, `${c.file}: storage unchanged`);
    }
    // Too large: refused before it is read (the limit is said).
    // Handing Chromium a 51 MB file can take a while on a busy machine: the step may take longer
    // than the usual 15 s; the alert below is what is checked.
    await dialog.getByLabel('Import file').setInputFiles({ name: 'huge.json', mimeType: 'application/json', buffer: Buffer.alloc(51_000_000, 32) }, { timeout: 90_000 });
    await poll(async () => /huge\.json cannot be imported: the file is 51\.0 MB, larger than the 50\.0 MB Satori imports/.test(await dialog.getByRole('alert').innerText()), { message: 'the size alert' });
    assert.deepEqual(await localStorageEntries(page), before);
    // Markup in an imported title stays text.
    await choose(dialog, 'html-title.json', fs.readFileSync(path.join(FIXTURES, 'html-title.json')));
    await dialog.getByRole('button', byName('Import 2 chats')).click();
    await dialog.getByRole('status').filter({ hasText: /^Imported 2 chats/ }).waitFor();
    await dialog.getByRole('button', byName('Close')).click();
    const titles = await chatList(page);
    assert.ok(titles.some((x) => x.title.includes('<img src=x onerror=alert(1)><script>alert(2)</script>')), JSON.stringify(titles));
    assert.equal(await page.locator('.sidebar img, .sidebar script').count(), 0);
  });
});

test('an id already taken by a different chat comes in as a copy; "Undo import" puts everything back', async (t) => {
  await e2e.open(t, async ({ page }) => {
    const valid = fs.readFileSync(path.join(FIXTURES, 'valid.json'), 'utf8');
    let dialog = await openImport(page);
    await choose(dialog, 'valid.json', valid);
    await dialog.getByRole('button', byName('Import 2 chats')).click();
    await dialog.getByRole('status').filter({ hasText: /^Imported 2 chats \(4 messages\)\.$/ }).waitFor();
    await dialog.getByRole('button', byName('Close')).click();
    const before = await localStorageEntries(page);
    // The same ids, other content.
    const changed = JSON.parse(valid);
    changed.chats[0].messages[1].content = 'Where is order ORD-2?';
    dialog = await openImport(page);
    await choose(dialog, 'changed.json', JSON.stringify(changed));
    await dialog.getByRole('status').filter({ hasText: '1 chat to import (4 messages), 1 skipped as identical, 1 as a copy (the id was taken).' }).waitFor();
    assert.match(await dialog.locator('.import-list').innerText(), /Order question — 4 messages, as a copy \(the id was taken\)/);
    await dialog.getByRole('button', byName('Import 1 chat')).click();
    await dialog.getByRole('status').filter({ hasText: /^Imported 1 chat/ }).waitFor();
    const during = await stored(page);
    assert.equal(Object.keys(during.chats).length, 3);
    assert.equal(during.chats['chat-a'].messages[1].content, 'Where is order ORD-1?', 'the chat already there is untouched');
    await dialog.getByRole('button', byName('Undo import')).click();
    await dialog.getByRole('status').filter({ hasText: 'Import undone' }).waitFor();
    const after = await localStorageEntries(page);
    delete after['satori.backup.import'];
    delete before['satori.backup.import'];
    assert.deepEqual(after, before, 'storage is as it was before the import');
  });
});

test('"Export chat": JSON that imports again, or Markdown of the branch on screen; a file dropped on the window opens the import', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: KEY });
    await sendMessage(page, 'Export me: 订单 ORD-9');
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    await chatAction(page, 'Export chat');
    let dialog = page.getByRole('dialog', byName('Export chat'));
    const json = await download(page, () => dialog.getByRole('button', byName('Download JSON')).click());
    assert.match(json.name, /^satori-chat-.*\.json$/);
    const parsed = JSON.parse(json.text);
    assert.equal(parsed.chats.length, 1);
    assert.ok(!json.text.includes(KEY));
    assert.equal(parsed.chats[0].messages.find((m) => m.role === 'user').content, 'Export me: 订单 ORD-9');
    await chatAction(page, 'Export chat');
    dialog = page.getByRole('dialog', byName('Export chat'));
    const md = await download(page, () => dialog.getByRole('button', byName('Download Markdown')).click());
    assert.match(md.name, /^satori-chat-.*\.md$/);
    assert.match(md.text, /## You\n\nExport me: 订单 ORD-9\n/);
    assert.match(md.text, /## Assistant \(fake-small\)\n\n/);
    assert.ok(!md.text.includes(KEY));

    // Drop the JSON onto the window: the import opens with it (identical: nothing to import).
    const transfer = await page.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
      return dt;
    }, json.text);
    await page.dispatchEvent('main', 'dragover', { dataTransfer: transfer });
    await page.dispatchEvent('main', 'drop', { dataTransfer: transfer });
    const imp = page.getByRole('dialog', byName('Import chats'));
    await imp.getByRole('status').filter({ hasText: 'dropped.json: 0 chats to import, 1 skipped as identical.' }).waitFor();
  });
});

test("a ChatGPT export (conversations.json) comes in with its branches and opens at the answer shown in ChatGPT", async (t) => {
  await e2e.open(t, async ({ page }) => {
    const text = fs.readFileSync(path.join(FIXTURES, 'chatgpt-conversations.json'), 'utf8');
    const dialog = await openImport(page);
    await choose(dialog, 'conversations.json', text);
    await dialog.getByRole('status').filter({ hasText: 'conversations.json: 2 chats to import (7 messages).' }).waitFor();
    await dialog.getByRole('button', byName('Import 2 chats')).click();
    await dialog.getByRole('status').filter({ hasText: /^Imported 2 chats/ }).waitFor();
    await dialog.getByRole('button', byName('Close')).click();
    await page.getByRole('navigation', byName('Chats')).getByRole('button', byName('Order status 订单')).click();
    const log = page.getByRole('log', byName('Conversation'));
    await poll(async () => /You're welcome\./.test(await log.innerText()), { message: 'the branch shown in ChatGPT' });
    const shown = await log.innerText();
    assert.match(shown, /It shipped on Monday \(regenerated\)\./);
    assert.doesNotMatch(shown, /Tomorrow\./, 'the other branch is kept but not shown');
    const records = await stored(page);
    const chat = records.chats['chatgpt-6750a1b2-0000-4000-8000-000000000001'];
    assert.equal(chat.messages.length, 7, 'both branches are stored');
  });
});

test("a ChatGPT export's .zip, or its parts picked together, comes in; missing parts are said; a damaged archive changes nothing", async (t) => {
  const ZIPS = path.join(FIXTURES, 'zip');
  const zipFile = (name) => ({ name, mimeType: 'application/zip', buffer: fs.readFileSync(path.join(ZIPS, name)) });
  await e2e.open(t, async ({ page }) => {
    const dialog = await openImport(page);
    // Damaged archives: a precise alert, storage unchanged.
    const before = await localStorageEntries(page);
    const cases = JSON.parse(fs.readFileSync(path.join(ZIPS, 'cases.json'), 'utf8')).filter((c) => c.error);
    for (const c of cases) {
      await dialog.getByLabel('Import file').setInputFiles(zipFile(c.file));
      const alert = dialog.getByRole('alert');
      await poll(async () => (await alert.innerText()).includes(c.error), { message: `${c.file}: an alert with ${JSON.stringify(c.error)}`, timeout: 5000 });
      assert.match(await alert.innerText(), /Nothing was changed\.$/);
      assert.deepEqual(await localStorageEntries(page), before, `${c.file}: storage unchanged`);
    }
    // Every readable archive (ZIP64, stored, a part missing): its preview, as in the native test.
    for (const c of JSON.parse(fs.readFileSync(path.join(ZIPS, 'cases.json'), 'utf8')).filter((c) => c.ok)) {
      await dialog.getByLabel('Import file').setInputFiles(zipFile(c.file));
      const status = dialog.getByRole('status').filter({ hasText: `${c.file}: ${c.ok} chats to import` });
      await status.waitFor();
      if (c.note) assert.ok((await status.innerText()).includes(c.note), await status.innerText());
      await dialog.getByRole('button', byName('Choose another file')).click();
    }
    // The whole export's .zip: only its conversation files are read.
    await dialog.getByLabel('Import file').setInputFiles(zipFile('chatgpt-export.zip'));
    await dialog.getByRole('status').filter({ hasText: 'chatgpt-export.zip: 3 chats to import (14 messages); 4 other files of the export (images, account data) were not read.' }).waitFor();
    await dialog.getByRole('button', byName('Import 3 chats')).click();
    await dialog.getByRole('status').filter({ hasText: /^Imported 3 chats/ }).waitFor();
    await dialog.getByRole('button', byName('Close')).click();
    await page.getByRole('navigation', byName('Chats')).getByRole('button', byName('Third part 第三部分')).click();
    const log = page.getByRole('log', byName('Conversation'));
    await poll(async () => /You're welcome\./.test(await log.innerText()), { message: 'the chat of the third part, at its branch' });

    // Its parts picked together (one missing, one other file): the same chats, nothing twice.
    const list = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'chatgpt-conversations.json'), 'utf8'));
    const part = (i, convs) => ({ name: `conversations-00${i}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(convs)) });
    const again = await openImport(page);
    await again.getByLabel('Import file').setInputFiles([
      part(0, [list[0]]),
      part(2, [{ ...list[0], id: 'p2', conversation_id: 'p2', title: 'Only in part two' }]),
      { name: 'export_manifest.json', mimeType: 'application/json', buffer: Buffer.from('{"files":["conversations-000.json","conversations-001.json","conversations-002.json"]}') },
      { name: 'user.json', mimeType: 'application/json', buffer: Buffer.from('{"email":"x@example.test"}') },
    ]);
    await again.getByRole('status').filter({
      hasText: 'conversations-000.json and 3 more files: 1 chat to import (7 messages), 1 skipped as identical; 1 part of the export is missing, so its chats are not imported: conversations-001.json; 1 other file of the export (images, account data) was not read.',
    }).waitFor();
    await again.getByRole('button', byName('Import 1 chat')).click();
    await again.getByRole('status').filter({ hasText: /^Imported 1 chat/ }).waitFor();
    const records = await stored(page);
    assert.deepEqual(Object.keys(records.chats).sort(), [
      'chatgpt-6750a1b2-0000-4000-8000-000000000001',
      'chatgpt-6750a1b2-0000-4000-8000-000000000002',
      'chatgpt-6750a1b2-0000-4000-8000-000000000003',
      'chatgpt-p2',
    ]);
  });
});

/** A ChatGPT conversation: a question (with an image attached when `image` names one) and its answer. */
function gptConversation(id, title, question, answer, image) {
  const node = (nid, parent, children, role, content, metadata = {}) => ({
    id: nid, parent, children,
    message: { id: nid, author: { role }, create_time: 1764581400, content, status: 'finished_successfully', metadata },
  });
  const asked = image
    ? node('q', null, ['a'], 'user', { content_type: 'multimodal_text', parts: [{ content_type: 'image_asset_pointer', asset_pointer: `file-service://${image.id}` }, question] }, { attachments: [{ id: image.id, name: image.name, mime_type: 'image/png' }] })
    : node('q', null, ['a'], 'user', { content_type: 'text', parts: [question] });
  return {
    title, conversation_id: id, id, create_time: 1764581400, update_time: 1764581500, current_node: 'a',
    mapping: { q: asked, a: node('a', 'q', [], 'assistant', { content_type: 'text', parts: [answer] }, { model_slug: 'gpt-4o' }) },
  };
}

/** Record whether the progress bar "Reading the file" is drawn, and the values it shows. */
function watchProgress(page) {
  return page.evaluate(() => {
    window.__bar = { seen: false, values: [] };
    new MutationObserver(() => {
      const bar = document.querySelector('progress[aria-label="Reading the file"]');
      if (!bar) return;
      window.__bar.seen = true;
      const v = bar.getAttribute('value');
      if (v !== null && window.__bar.values.at(-1) !== v) window.__bar.values.push(v);
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['value'] });
  });
}

test("an export's .zip (two parts and an image) is read in the import worker with the progress bar; a damaged one changes nothing", async (t) => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'satori-zip-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const part0 = [
    gptConversation('z-1', 'Zip trip 旅行', 'Which train to Kyoto? 去京都坐哪趟车？', 'Take the Nozomi from Tokyo.'),
    gptConversation('z-2', 'Photo question', 'What is in this photo?', 'A cat on a windowsill.', { id: 'file-abc', name: 'cat.png' }),
  ];
  const part1 = [gptConversation('z-3', 'Second part 第二部分', 'How many parts?', 'This one came from conversations-001.json.'), { title: '', mapping: 'broken' }];
  const entries = [
    { name: 'Export/conversations-000.json', data: JSON.stringify(part0) },
    { name: 'Export/conversations-001.json', data: JSON.stringify(part1) },
    { name: 'Export/file-abc-cat.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, ...Array(2000).fill(7)]), store: true },
  ];
  const good = path.join(dir, 'chatgpt-export.zip');
  writeZip(good, entries);
  // The same archive with the second part's deflated data damaged in its middle.
  const damaged = path.join(dir, 'damaged-export.zip');
  const bytes = fs.readFileSync(good);
  const { start, length } = entryData(bytes, 'Export/conversations-001.json');
  for (let i = start + Math.floor(length / 3); i < start + Math.floor(length / 3) + 8; i++) bytes[i] ^= 0x5a;
  fs.writeFileSync(damaged, bytes);

  await e2e.open(t, async ({ page }) => {
    const before = await localStorageEntries(page);
    const dialog = await openImport(page);
    await watchProgress(page);
    await dialog.getByLabel('Import file').setInputFiles(damaged);
    const alert = dialog.getByRole('alert');
    await poll(async () => /^damaged-export\.zip cannot be imported: the archive cannot be read: Export\/conversations-001\.json is damaged \(its data does not match its checksum\)\. Nothing was changed\.$/.test(await alert.innerText()), { message: 'the damaged archive is refused' });
    assert.deepEqual(await localStorageEntries(page), before, 'storage unchanged');

    await watchProgress(page);
    await dialog.getByLabel('Import file').setInputFiles(good);
    const status = dialog.getByRole('status').filter({ hasText: 'chatgpt-export.zip: 3 chats to import (6 messages); 1 other file of the export (images, account data) was not read; 1 chat could not be read and was skipped: untitled chat #2 of conversations-001.json (mapping: missing, or not an object).' });
    await status.waitFor();
    const bar = await page.evaluate(() => window.__bar);
    assert.ok(bar.seen, 'the progress bar was shown');
    assert.equal(bar.values.at(-1), '100', `the worker's progress reached the end: ${JSON.stringify(bar.values)}`);
    await dialog.getByRole('button', byName('Import 3 chats')).click();
    await dialog.getByRole('status').filter({ hasText: /^Imported 3 chats/ }).waitFor();
    await dialog.getByRole('button', byName('Close')).click();
    const titles = (await chatList(page)).map((c) => c.title);
    for (const title of ['Zip trip 旅行', 'Photo question', 'Second part 第二部分']) assert.ok(titles.includes(title), `${title} in ${JSON.stringify(titles)}`);
    const nav = page.getByRole('navigation', byName('Chats'));
    const log = page.getByRole('log', byName('Conversation'));
    await nav.getByRole('button', byName('Second part 第二部分')).click();
    await poll(async () => /This one came from conversations-001\.json\./.test(await log.innerText()), { message: 'the chat of the second part' });
    await nav.getByRole('button', byName('Photo question')).click();
    await poll(async () => /\[image: cat\.png\][\s\S]*What is in this photo\?[\s\S]*A cat on a windowsill\./.test(await log.innerText()), { message: 'the image named by a placeholder' });
  });
});

test('a NextChat backup and a BetterChatGPT export come in; NextChat\'s API key is never stored; titles stay text', async (t) => {
  await e2e.open(t, async ({ page }) => {
    const dialog = await openImport(page);
    await choose(dialog, 'Backup-2025-1-15.json', fs.readFileSync(path.join(FIXTURES, 'nextchat-backup.json'), 'utf8'));
    await dialog.getByRole('status').filter({ hasText: 'Backup-2025-1-15.json: 2 chats to import (9 messages); the file\'s settings were not applied.' }).waitFor();
    await dialog.getByRole('button', byName('Import 2 chats')).click();
    await dialog.getByRole('status').filter({ hasText: /^Imported 2 chats/ }).waitFor();
    await dialog.getByRole('button', byName('Close')).click();
    const again = await openImport(page);
    await choose(again, 'better-chatgpt.json', fs.readFileSync(path.join(FIXTURES, 'betterchatgpt-export.json'), 'utf8'));
    await again.getByRole('button', byName('Import 2 chats')).click();
    await again.getByRole('status').filter({ hasText: /^Imported 2 chats/ }).waitFor();
    await again.getByRole('button', byName('Close')).click();
    const nav = page.getByRole('navigation', byName('Chats'));
    // A title that looks like HTML is shown as text, never run.
    await nav.getByRole('button', byName('<img src=x onerror=alert(1)>')).waitFor();
    assert.equal(await page.locator('img[src="x"]').count(), 0);
    await nav.getByRole('button', byName('订单查询')).click();
    const log = page.getByRole('log', byName('Conversation'));
    await poll(async () => /ORD-2024-00042/.test(await log.innerText()), { message: 'the NextChat chat' });
    await nav.getByRole('button', byName('Image question')).click();
    await poll(async () => /A cat\./.test(await log.innerText()), { message: 'the BetterChatGPT chat' });
    const all = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    assert.ok(!all.includes('sk-nextchat-secret-key') && !all.includes('letmein'), 'no key or access code from the backup is stored');
  });
});

test('"Search chats" finds titles and text ignoring case and accents, Chinese too, marks the hits and opens the chat at the message', async (t) => {
  await e2e.open(t, async ({ page }) => {
    // Three chats to search: two from a NextChat backup, and one with a long history.
    const dialog = await openImport(page);
    await choose(dialog, 'backup.json', fs.readFileSync(path.join(FIXTURES, 'nextchat-backup.json'), 'utf8'));
    await dialog.getByRole('button', byName('Import 2 chats')).click();
    await dialog.getByRole('status').filter({ hasText: /^Imported 2 chats/ }).waitFor();
    await dialog.getByRole('button', byName('Close')).click();
    await page.evaluate(() => {
      const messages = [];
      // The message found has an id an imported file could carry: quotes, a newline, a backslash.
      const idOf = (i) => (i === 60 ? 'f60 "odd"\n]\\' : `f${i}`);
      for (let i = 0; i < 120; i++) {
        const content = i === 60 ? 'We met at the Café Florián on Monday.' : i === 30 ? 'Nǐ hǎo, Ștefan! Tiếng Việt.' : i === 31 ? '한국어 문장입니다.' : `Filler message ${i} about nothing much.`;
        messages.push({ id: idOf(i), parent: i ? idOf(i - 1) : undefined, role: i % 2 ? 'assistant' : 'user', content, status: 'complete', created_at: 1000 + i });
      }
      const chat = { v: 1, id: 'long-one', title: 'Travel notes', role: '', created_at: 1000, updated_at: 1200, messages, leaf: 'f119' };
      localStorage.setItem('satori.session.long-one', JSON.stringify(chat));
      const index = JSON.parse(localStorage.getItem('satori.index'));
      index.sessions.unshift({ id: 'long-one', title: 'Travel notes', updated_at: 1200 });
      localStorage.setItem('satori.index', JSON.stringify(index));
    });
    await page.reload();
    await page.getByRole('textbox', byName('Message')).waitFor();
    await page.getByRole('button', byName('Search chats')).click();
    const search = page.getByRole('dialog', byName('Search chats'));
    const box = search.getByRole('searchbox', byName('Search chats'));
    await box.fill('cafe florian');
    await search.getByRole('status').filter({ hasText: '1 chat matches.' }).waitFor();
    assert.deepEqual(await search.locator('mark').allInnerTexts(), ['Café', 'Florián']);
    // Accented letters beyond Latin-1: pinyin tones, Romanian, Vietnamese.
    await box.fill('ni hao stefan tieng viet');
    await search.getByRole('status').filter({ hasText: '1 chat matches.' }).waitFor();
    assert.deepEqual(await search.locator('.search-message mark').allInnerTexts(), ['Nǐ', 'hǎo', 'Ștefan', 'Tiếng', 'Việt']);
    // Hangul is decomposed for searching too: typed syllables still find it.
    await box.fill('한국어');
    await search.getByRole('status').filter({ hasText: '1 chat matches.' }).waitFor();
    assert.deepEqual(await search.locator('.search-message mark').allInnerTexts(), ['한국어']);
    await box.fill('订单');
    await search.getByRole('status').filter({ hasText: '1 chat matches.' }).waitFor();
    assert.match(await search.locator('.search-chat').innerText(), /订单查询/);
    await box.fill('no such words anywhere');
    await search.getByRole('status').filter({ hasText: 'No chat matches.' }).waitFor();
    await box.fill('MONDAY');
    await search.getByRole('button', { name: /Café Florián on Monday/ }).click();
    await search.waitFor({ state: 'detached' });
    const found = page.locator('article.msg.found');
    await found.waitFor();
    assert.match(await found.innerText(), /Café Florián/);
    assert.ok(await found.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.bottom > 0 && r.top < window.innerHeight;
    }), 'the message is on screen');
  });
});

test('"Export all" carries a damaged chat record byte for byte; importing that file says so and imports the rest', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await makeHistory(page);
    const broken = '{"v":1, "id": "broken", "messages": [ {"role": "user", "content": "half a rec';
    await page.evaluate((text) => localStorage.setItem('satori.session.broken', text), broken);
    const file = await download(page, () => page.getByRole('button', byName('Export all')).click());
    const parsed = JSON.parse(file.text);
    assert.deepEqual(parsed.unreadable, [{ key: 'satori.session.broken', text: broken }]);
    assert.equal(parsed.chats.length, 2);
    assert.equal(await page.evaluate(() => localStorage.getItem('satori.session.broken')), broken, 'left as it is');
    await withApp(e2e.browser, e2e.web.url, t, async ({ page: fresh }) => {
      const dialog = await openImport(fresh);
      await choose(dialog, file.name, file.text);
      await dialog.getByRole('status').filter({ hasText: '1 damaged chat record in the file, kept there as text, cannot be imported.' }).waitFor();
      await dialog.getByRole('button', byName('Import 2 chats')).click();
      await dialog.getByRole('status').filter({ hasText: /^Imported 2 chats/ }).waitFor();
      assert.equal(await fresh.evaluate(() => localStorage.getItem('satori.session.broken')), null, 'never written');
    });
  });
});
