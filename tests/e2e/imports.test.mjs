// Moving in from another app, through the Import dialog, with exports of the kind people have
// (tests/fixtures/import/, written from each format's published shape): ChatGPT as it really is
// (browsing steps, citations, attachments, an interrupted reply, broken entries among good ones),
// Claude's data export, Open WebUI and LibreChat. What the preview says, what the chat list and
// the conversation show, what the next request sends; a file nothing can be read from changes
// nothing in storage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { useApp } from './support/app.mjs';
import { repoRoot } from './support/env.mjs';
import { writeZip } from './support/zip.mjs';
import { byName, configure, sendMessage, waitIdle, localStorageEntries, chatFrom, poll } from './support/browser.mjs';

const e2e = useApp();
const FIXTURES = path.join(repoRoot, 'tests', 'fixtures', 'import');
const fixture = (name) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

async function openImport(page) {
  await page.getByRole('button', byName('Import')).click();
  const dialog = page.getByRole('dialog', byName('Import chats'));
  await dialog.waitFor();
  return dialog;
}

async function importFile(page, name, text, chats) {
  const dialog = await openImport(page);
  await dialog.getByLabel('Import file').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  const label = `Import ${chats} ${chats === 1 ? 'chat' : 'chats'}`;
  await dialog.getByRole('button', byName(label)).waitFor();
  const preview = {
    status: await dialog.getByRole('status').innerText(),
    report: await dialog.getByRole('list', byName('What was converted')).innerText().catch(() => ''),
  };
  await dialog.getByRole('button', byName(label)).click();
  await dialog.getByRole('status').filter({ hasText: /^Imported / }).waitFor();
  preview.done = await dialog.getByRole('status').innerText();
  await dialog.getByRole('button', byName('Close')).click();
  return preview;
}

async function storedChat(page, id) {
  return chatFrom(await localStorageEntries(page), id);
}

test('a real ChatGPT export: browsing steps are tool steps, citations are links, the interrupted reply is incomplete, broken entries are named and skipped', async (t) => {
  await e2e.open(t, async ({ page }) => {
    const preview = await importFile(page, 'conversations.json', fixture('chatgpt-tools-citations.json'), 2);
    assert.match(preview.status, /^conversations\.json: 2 chats to import \(/);
    assert.match(preview.status, /2 chats could not be read and were skipped: "Broken one" \(mapping: missing, or not an object\), untitled chat #4 \(mapping: missing, or not an object\)/);
    assert.match(preview.report, /"东京天气 Tokyo weather": 2 tool calls and 2 results kept as tool steps, 3 citations linked, 1 citation marker removed, 2 attachments shown by name only, 1 interrupted reply marked incomplete/);
    assert.match(preview.done, /could not be read and were skipped/, 'the result says it too');

    // Stored as tool rounds, not as replies.
    const chat = await storedChat(page, 'chatgpt-cg-0001');
    const byId = Object.fromEntries(chat.messages.map((m) => [m.id, m]));
    assert.deepEqual(byId.c1.tool_calls.map((c) => [c.id, c.name, JSON.parse(c.arguments)]), [['call_c1', 'browser', { code: 'search("东京 明天 天气")' }]]);
    assert.equal(byId.c1.content, '', 'the call is not text the assistant said');
    assert.equal(byId.t1.role, 'tool');
    assert.equal(byId.t1.tool_call_id, 'call_c1');
    assert.equal(byId.a2.status, 'incomplete');

    // On screen: the chat opens at the interrupted reply; the steps are collapsed; the citations are links.
    await page.getByRole('navigation', byName('Chats')).getByRole('button', byName('东京天气 Tokyo weather')).click();
    const log = page.getByRole('log', byName('Conversation'));
    await poll(async () => /收据上的金额是/.test(await log.innerText()), { message: 'the branch ChatGPT showed' });
    const reply = log.locator('article[data-message="a1"]');
    assert.equal(await reply.locator('a[href="https://weather.example/tokyo"]').count(), 2, 'both citations of the page link to it');
    assert.doesNotMatch(await reply.innerText(), /【|†/, 'no raw marker is shown');
    assert.equal(await log.locator('article[data-message="c1"] details.tool-calls summary').innerText(), 'Called browser');
    assert.equal(await log.locator('article[data-message="t1"] details.tool-result').count(), 1);
    assert.equal(await log.locator('article[data-message="a2"] .badge.incomplete').count(), 1);

    // The next request: tool rounds as tool rounds; what the assistant said has no marker and no search(…).
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-import' });
    e2e.fake.reset();
    await sendMessage(page, '谢谢');
    await waitIdle(page);
    const body = e2e.fake.chatRequests().at(-1).body;
    const assistant = body.messages.filter((m) => m.role === 'assistant');
    assert.ok(assistant.some((m) => (m.tool_calls || []).some((c) => c.function.name === 'browser')), 'the browsing call goes as a tool call');
    assert.ok(body.messages.some((m) => m.role === 'tool' && m.tool_call_id === 'call_c1'), 'and its page as its result');
    for (const m of assistant) {
      assert.doesNotMatch(m.content || '', /【|search\(|mclick\(/, 'the assistant is never made to say a marker or a browsing command');
    }
    assert.ok(assistant.some((m) => (m.content || '').includes('[1](https://weather.example/tokyo)')), 'citations go as numbered links');
  });
});

test('Claude, Open WebUI and LibreChat exports come in with titles, branches and models; a file with no readable chat changes nothing', async (t) => {
  await e2e.open(t, async ({ page }) => {
    const claude = await importFile(page, 'conversations.json', fixture('claude-conversations.json'), 2);
    assert.match(claude.status, /1 chat could not be read and was skipped: "No id" \(uuid: missing\)/);
    assert.match(claude.report, /"Reading a file in Rust": 1 tool call and 1 result kept as tool steps, 2 attachments shown by name only/);
    const owui = await importFile(page, 'chat-export.json', fixture('openwebui-export.json'), 2);
    assert.match(owui.status, /"Broken chat" \(chat: missing, or not an object\)/);
    await importFile(page, 'librechat-tree.json', fixture('librechat-tree.json'), 1);
    await importFile(page, 'librechat-flat.json', fixture('librechat-flat.json'), 1);

    const nav = page.getByRole('navigation', byName('Chats'));
    const log = page.getByRole('log', byName('Conversation'));
    // Claude: the edited question is a branch; the chat opens at the one shown last.
    await nav.getByRole('button', byName('Reading a file in Rust')).click();
    await poll(async () => /Use fs::read\./.test(await log.innerText()), { message: 'the Claude chat at its current branch' });
    assert.doesNotMatch(await log.innerText(), /BufRead::lines/, 'the other branch is kept, not shown');
    const rust = await storedChat(page, 'claude-c-0001');
    assert.equal(rust.messages.find((m) => m.id === 'a1-1').reasoning, 'The user wants fs.', 'thinking is the reply\'s reasoning');
    // Open WebUI: both answers of the first question are kept, with their models.
    await nav.getByRole('button', byName('Rust ownership')).click();
    await poll(async () => /The diagram shows/.test(await log.innerText()), { message: 'the Open WebUI chat' });
    const owuiChat = await storedChat(page, 'openwebui-ow-0001');
    assert.deepEqual(owuiChat.messages.filter((m) => m.role === 'assistant').map((m) => m.model), ['llama3.1:8b', 'qwen2.5:7b', 'qwen2.5:7b']);
    // LibreChat: the tree's branches, and the flat file's tool round.
    await nav.getByRole('button', byName('Kyoto trip')).click();
    await poll(async () => /Day 2: Arashi/.test(await log.innerText()), { message: 'the LibreChat tree at its current branch' });
    assert.equal((await storedChat(page, 'librechat-lc-0001')).messages.length, 5);
    const powers = await storedChat(page, 'librechat-lc-0002');
    assert.equal(powers.messages.find((m) => m.id === 'f2-2').tool_call_id, 'call_a');

    // A long LibreChat chat: its tree nests each reply in the one before, 900 messages nest
    // 1 800 levels deep (past the JSON reader's usual 128); it comes in whole.
    const n = 900;
    let tree = '{"conversationId":"long-tree","title":"A long tree","messagesTree":[';
    for (let i = 0; i < n; i++) {
      tree += `{"messageId":"t${i}","isCreatedByUser":${i % 2 === 0},"text":"message ${i}","createdAt":"2026-12-01T00:00:00.000Z","children":[`;
    }
    tree += ']}'.repeat(n) + ']}';
    await importFile(page, 'long-tree.json', tree, 1);
    const long = await storedChat(page, 'librechat-long-tree');
    assert.equal(long.messages.length, n);
    assert.equal(long.leaf, `t${n - 1}`);

    // A recognised file with no readable chat: refused whole, storage byte for byte the same.
    const before = await localStorageEntries(page);
    const dialog = await openImport(page);
    const broken = JSON.stringify([{ title: 'Broken', mapping: 'not an object' }]);
    await dialog.getByLabel('Import file').setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from(broken) });
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /broken\.json cannot be imported: .*none of its 1 chats can be read.*Nothing was changed\./);
    assert.deepEqual(await localStorageEntries(page), before);
  });
});

// A ChatGPT export of `convs` conversations of about `kb` KB each (a question and a long answer),
// numbered from `from`.
function bigExport(convs, kb, from = 0) {
  const answer = 'All work and no play makes a long answer. '.repeat(Math.ceil((kb * 1000) / 43));
  const list = [];
  for (let i = from; i < from + convs; i++) {
    const node = (id, parent, role, text, children) => ({ id, parent, children, message: { id, author: { role }, create_time: 1764581400 + i, content: { content_type: 'text', parts: [text] }, metadata: { model_slug: 'gpt-4o' } } });
    list.push({ title: `Long ${i + 1}`, conversation_id: `long-${i}`, create_time: 1764581400 + i, current_node: 'a', mapping: { q: node('q', null, 'user', `Question ${i}?`, ['a']), a: node('a', 'q', 'assistant', answer, []) } });
  }
  return JSON.stringify(list);
}

// See: #36 (budgets) — a large export is read in the import worker: the dialog shows how much was
// read and the page goes on handling input meanwhile; what does not fit the browser's storage is
// said, and nothing is lost.
test('a large export is read in a worker: the dialog shows its progress and the page stays responsive; one too large to store changes nothing', async (t) => {
  await e2e.open(t, async ({ page }) => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'satori-big-'));
    const file = path.join(dir, 'conversations.json');
    fs.writeFileSync(file, bigExport(600, 60));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const before = await localStorageEntries(page);
    const dialog = await openImport(page);
    await dialog.getByLabel('Import file').setInputFiles(file);
    const bar = dialog.getByRole('progressbar', byName('Reading the file'));
    const value = async () => Number((await bar.getAttribute('value', { timeout: 1000 }).catch(() => null)) ?? -1);
    // Part of the file read, not all of it.
    await poll(async () => { const v = await value(); return v > 0 && v < 100; }, { message: 'progress between 0 and 100 %', timeout: 60_000 });
    const first = await value();
    // The page handles a key and a click while the worker reads: the focus moves, and the bar
    // goes on moving.
    await page.keyboard.press('Tab');
    await dialog.getByRole('heading', byName('Import chats')).click();
    assert.equal(await dialog.getByRole('progressbar').count(), 1, 'still reading after the input was handled');
    await poll(async () => (await value()) > first || (await dialog.getByRole('button', byName('Import 600 chats')).count()) > 0, { message: 'the reading goes on', timeout: 60_000 });
    await dialog.getByRole('button', byName('Import 600 chats')).waitFor({ timeout: 120_000 });
    assert.match(await dialog.getByRole('status').innerText(), /^conversations\.json: 600 chats to import \(1200 messages\)\.$/);
    // 36 MB does not fit in the browser's storage: said, and nothing changed.
    await dialog.getByRole('button', byName('Import 600 chats')).click();
    const alert = dialog.getByRole('alert').filter({ hasText: /Nothing was imported/ });
    await alert.waitFor({ timeout: 60_000 });
    assert.deepEqual(await localStorageEntries(page), before);
  });
});

// An export's .zip larger than a single file may be (its conversations 55 MB once unpacked, the
// archive 56 MB with its photos): unpacked and read in the worker, a part at a time, with the
// progress bar; refused before ("more than the 50.0 MB Satori imports").
test("an export's .zip larger than 50 MB is read in the worker: its parts unpacked as they arrive, the preview says what it holds", async (t) => {
  await e2e.open(t, async ({ page }) => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'satori-bigzip-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'big-export.zip');
    const size = writeZip(file, [
      { name: 'Export/conversations-000.json', data: bigExport(200, 140) },
      { name: 'Export/conversations-001.json', data: bigExport(200, 140, 200) },
      // Photos do not compress: stored as they are, and never read.
      { name: 'Export/file-photos.jpg', data: crypto.randomBytes(52_000_000), store: true },
    ]);
    assert.ok(size > 50_000_000, `the archive is ${size} bytes`);
    const before = await localStorageEntries(page);
    const dialog = await openImport(page);
    await dialog.getByLabel('Import file').setInputFiles(file);
    const bar = dialog.getByRole('progressbar', byName('Reading the file'));
    const value = async () => Number((await bar.getAttribute('value', { timeout: 1000 }).catch(() => null)) ?? -1);
    const refused = async () => (await dialog.getByRole('alert').innerText()).trim();
    // Part of the archive read, not all of it (or a refusal, which fails below).
    await poll(async () => (await refused()) !== '' || ((v) => v > 0 && v < 100)(await value()), { message: 'progress between 0 and 100 %', timeout: 60_000 });
    assert.equal(await refused(), '', 'not refused');
    const ready = dialog.getByRole('button', byName('Import 400 chats'));
    await ready.waitFor({ timeout: 120_000 });
    assert.equal(
      await dialog.getByRole('status').innerText(),
      'big-export.zip: 400 chats to import (800 messages); 1 other file of the export (images, account data) was not read.',
    );
    assert.deepEqual(await localStorageEntries(page), before, 'nothing written by the preview');
  });
});

