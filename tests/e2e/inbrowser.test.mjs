// The model in the tab: with no server running at all, the provider "In this browser
// (SmolLM2-135M)" downloads the model once (the pieces scripts/build.sh puts in dist/model/),
// answers in a worker, streams into the conversation, stops on Stop, and comes from the cache
// after a reload. A chat far past the model's 2 048-token window keeps getting answers. A host that
// leaves model/ out says so, and a GGUF file picked from disk runs instead.
import { test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import os from 'node:os';
import { useApp } from './support/app.mjs';
import { requireDist } from './support/env.mjs';
import { startStatic } from './support/static-server.mjs';
import { smollm2Gguf, quantizedGguf } from './support/llama.mjs';
import {
  configure,
  waitIdle,
  sendMessage,
  articles,
  lastAssistant,
  textOf,
  waitForStatus,
  poll,
  reload,
  recordAssistantTexts,
  partialTexts,
  stopButton,
  storedChat,
  writeChat,
  alerts,
  sleep,
  byName,
  withApp,
} from './support/browser.mjs';

const PROVIDER = 'In this browser (SmolLM2-135M)';
// The model's pieces as the build listed them: the size the app announces must be theirs.
const DIST = requireDist();
const MANIFEST = (() => {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const file = html.match(/<meta name="satori-table:llm-model" content="\.\/([^"]+)"/);
  if (!file) throw new Error('dist/ was built without the in-browser model: run bash scripts/setup.sh, then the build');
  return JSON.parse(fs.readFileSync(path.join(DIST, file[1]), 'utf8'));
})();
const MB = Math.round(MANIFEST.bytes / 1e6);
const e2e = useApp({ fake: false });

// Picks `files` in Settings' model file input once it takes one (it waits while a change runs).
async function pickFile(input, files) {
  await poll(() => input.isEnabled(), { message: 'the model file input enabled' });
  await input.setInputFiles(files);
}

const modelPieces = (app) => app.requests.filter((u) => /\/model\/[^/]+\.bin$/.test(u));

/** Records, in the page, whether the download bar ever appeared and what it said. */
async function watchProgress(page) {
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const bar = document.querySelector('progress[aria-label]');
      const box = bar?.closest('[role="status"]');
      if (bar && box) window.__progress.push({ label: bar.getAttribute('aria-label'), text: box.innerText });
    }).observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
  });
}

test('no server: the in-browser model answers, streams, stops within a token, and comes from the cache after a reload', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    // A first run: the default local server is not running, and the alert offers the model in
    // the tab, saying how much it downloads.
    await sendMessage(page, 'What is the capital of France?', { timeout: 60_000 });
    await alerts(page).first().waitFor({ timeout: 60_000 });
    await waitIdle(page, { timeout: 60_000 });
    const offer = page.getByRole('button', byName(`Use the in-browser model (${MB} MB download)`));
    assert.match(await alerts(page).first().innerText(), new RegExp(`a one-time download of ${MB} MB`));
    await watchProgress(page);
    const stopRecording = await recordAssistantTexts(page);
    await offer.click();
    await poll(async () => (await articles(page, 'assistant').count()) === 1, { timeout: 60_000, message: 'the answer to start' });
    await waitIdle(page, { timeout: 180_000 });
    const entries = await stopRecording();
    const reply = lastAssistant(page);
    assert.equal(await waitForStatus(reply, ['complete', 'incomplete', 'error', 'stopped']), 'complete',
      `the reply: ${await textOf(reply)}; alerts: ${await alerts(page).allInnerTexts()}`);
    const answer = await textOf(reply);
    assert.ok(answer.trim().length > 0, 'the model answered something');
    assert.ok(partialTexts(entries, answer).length >= 1, `the text grew while streaming (saw ${JSON.stringify(entries.map((e) => e.text))})`);
    // The download: every piece once, with a bar that said how much.
    const pieces = modelPieces(app);
    assert.ok(pieces.length >= 2, `the model's pieces were downloaded: ${pieces.join(', ')}`);
    assert.equal(new Set(pieces).size, pieces.length, 'no piece twice');
    const seen = await page.evaluate(() => window.__progress);
    assert.ok(seen.some((p) => p.label === 'Downloading the in-browser model' && p.text.includes(`of ${(MANIFEST.bytes / 1e6).toFixed(1)} MB`)),
      `the download bar: ${JSON.stringify(seen.slice(-3))}`);
    // Nothing went to the network for the model's address; the choice was saved.
    assert.deepEqual(app.requests.filter((u) => u.includes('in-browser.invalid')), []);
    assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem('satori.settings'))).provider, 'browser');

    // Stop mid-answer: the text stops growing, and so does the worker. It counts the tokens it
    // sends, and notes the count when the page's "stop" reaches it: what it sends after that is
    // what Stop failed to halt (counting from the click instead would count the tokens decoded
    // while the click and the message travel, which a busy machine makes many).
    const worker = page.workers().find((w) => w.url().endsWith('/worker.js'));
    assert.ok(worker, `the model's worker: ${page.workers().map((w) => w.url())}`);
    await worker.evaluate(() => {
      self.__texts = 0;
      self.__atStop = null;
      const post = self.postMessage.bind(self);
      self.postMessage = (m, ...rest) => {
        if (m && m.type === 'text') self.__texts += 1;
        return post(m, ...rest);
      };
      const receive = self.onmessage;
      self.onmessage = (event) => {
        if (event.data && event.data.type === 'stop' && self.__atStop === null) self.__atStop = self.__texts;
        return receive(event);
      };
    });
    await configure(page, { provider: PROVIDER, maxTokens: 400 });
    await sendMessage(page, 'Write a long story about a dragon who learns to bake bread.', { timeout: 60_000 });
    const long = lastAssistant(page);
    await poll(async () => (await textOf(long)).length > 40, { timeout: 120_000, message: 'the story to start' });
    await stopButton(page).click();
    assert.equal(await waitForStatus(long, ['complete', 'incomplete', 'error', 'stopped']), 'stopped');
    await sleep(1500); // about 35 tokens at the decoding speed measured
    const { atStop, sent } = await worker.evaluate(() => ({ atStop: self.__atStop, sent: self.__texts }));
    assert.notEqual(atStop, null, 'Stop reached the worker');
    assert.ok(sent - atStop <= 1, `the worker went on: ${sent - atStop} tokens after Stop reached it`);

    // A reload: the model comes from the cache (no piece is fetched again) and answers.
    const before = modelPieces(app).length;
    await reload(page);
    await configure(page, { provider: PROVIDER, maxTokens: 16 });
    await sendMessage(page, 'Name a color.', { timeout: 60_000 });
    await waitIdle(page, { timeout: 120_000 });
    assert.equal(await waitForStatus(lastAssistant(page), ['complete', 'incomplete', 'error', 'stopped']), 'complete',
      `alerts: ${await alerts(page).allInnerTexts()}`);
    assert.ok((await textOf(lastAssistant(page))).trim().length > 0);
    assert.equal(modelPieces(app).length, before, `no model bytes after the reload: ${modelPieces(app).slice(before)}`);
  });
});

test('the in-browser model: a chat far past its 2 048-token window keeps getting answers', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    // Summaries off (each would be a long model call here): the window slides. A large reply
    // reserve keeps each prompt short, so the test reads few tokens.
    await configure(page, { provider: PROVIDER, maxTokens: 16, replyReserve: 1400, summarize: false });
    await sendMessage(page, 'Hello!', { timeout: 60_000 });
    await waitIdle(page, { timeout: 180_000 });
    // Months of chat: 14 long rounds after the first (about 5 000 tokens), stored as Satori stores them.
    const s = await storedChat(page);
    let parent = s.leaf;
    const topics = ['rivers', 'mountains', 'bread', 'trains', 'violins', 'comets', 'gardens', 'bridges', 'owls', 'glass', 'tea', 'maps', 'bees', 'salt'];
    for (const [i, topic] of topics.entries()) {
      const u = { id: `u${i}`, parent, role: 'user', status: 'complete', created_at: 1,
        content: `Tell me about ${topic}. ${`Some notes on ${topic} and why they matter to people. `.repeat(20)}` };
      const a = { id: `a${i}`, parent: u.id, role: 'assistant', status: 'complete', created_at: 1,
        content: `Here is something about ${topic}. ${`A fact about ${topic}. `.repeat(15)}` };
      s.messages.push(u, a);
      parent = a.id;
    }
    s.leaf = parent;
    await writeChat(page, s);
    await reload(page);
    const total = s.messages.reduce((n, m) => n + m.content.length, 0);
    assert.ok(total > 10_000, `the stored chat is long (${total} characters)`);
    await sendMessage(page, 'What was the last topic?', { timeout: 60_000 });
    await waitIdle(page, { timeout: 240_000 });
    const reply = lastAssistant(page);
    assert.equal(await waitForStatus(reply, ['complete', 'incomplete', 'error', 'stopped']), 'complete',
      `the reply: ${await textOf(reply)}; alerts: ${await alerts(page).allInnerTexts()}`);
    assert.ok((await textOf(reply)).trim().length > 0);
    assert.equal(await articles(page, 'assistant').filter({ hasText: 'exceeds' }).count(), 0);
  });
});

test('the in-browser model on a slow link: progress keeps the answer alive within a piece, Stop leaves the download going, the bar goes when it is done', async (t) => {
  await e2e.open(t, async (app) => {
    const { page, context } = app;
    // A stall timeout shorter than one piece takes at this speed: only progress within a piece
    // keeps the answer from being given up as stalled.
    await configure(page, { provider: PROVIDER, maxTokens: 8, stallSeconds: 4 });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 2_000_000, uploadThroughput: 1_000_000 });
    const bar = page.getByRole('progressbar', byName('Downloading the in-browser model'));
    await sendMessage(page, 'Hello!', { timeout: 60_000 });
    await bar.waitFor({ timeout: 60_000 });
    const loaded = async () => Number(await bar.evaluate((p) => p.value));
    // The first weight piece (16.8 MB, about 8 s at this speed, longer than the stall timeout)
    // has arrived: only progress within it kept the answer waiting.
    await poll(async () => (await loaded()) >= 12e6, { timeout: 60_000, interval: 200, message: 'the download to go on' });
    assert.equal(await alerts(page).count(), 0, `no alert: ${await alerts(page).allInnerTexts()}`);
    assert.ok(await stopButton(page).isVisible(), 'the answer is still waiting');
    await stopButton(page).click();
    await waitIdle(page, { timeout: 30_000 });
    const atStop = await loaded();
    await poll(async () => (await loaded()) > atStop, { timeout: 30_000, message: 'the download going on after Stop' });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.locator('progress[aria-label]').waitFor({ state: 'detached', timeout: 120_000 });
    // Sending again uses what was downloaded: every piece was fetched once.
    await sendMessage(page, 'Hello again!', { timeout: 60_000 });
    await waitIdle(page, { timeout: 120_000 });
    assert.equal(await waitForStatus(lastAssistant(page), ['complete', 'incomplete', 'error', 'stopped']), 'complete',
      `alerts: ${await alerts(page).allInnerTexts()}`);
    const pieces = modelPieces(app);
    assert.equal(pieces.length, MANIFEST.pieces.length, `each piece once: ${pieces.join(', ')}`);
  });
});

test('the in-browser model where the browser will not keep it: it answers from memory and says it will download again', async (t) => {
  await e2e.open(t, async (app) => {
    const { page, context } = app;
    // A quota smaller than one piece: every put into the Cache API fails (QuotaExceededError).
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.origin, quotaSize: 1_000_000 });
    await configure(page, { provider: PROVIDER, maxTokens: 8 });
    const note = page.getByRole('status').filter({ hasText: 'did not keep the model' });
    await sendMessage(page, 'Hello!', { timeout: 60_000 });
    await note.waitFor({ timeout: 120_000 });
    await waitIdle(page, { timeout: 120_000 });
    assert.equal(await waitForStatus(lastAssistant(page), ['complete', 'incomplete', 'error', 'stopped']), 'complete',
      `alerts: ${await alerts(page).allInnerTexts()}`);
    assert.ok((await textOf(lastAssistant(page))).trim().length > 0);
    assert.match(await note.innerText(), /downloaded again next time/);
  });
});

test('a host without the model says so; a GGUF file picked from disk (Q4_K_M, the format people download) answers instead, stays after a reload, and a file that is no model or over 2 GB is refused', async (t) => {
  // This copy of dist/ leaves the model's pieces out, as a host may.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-nomodel-'));
  fs.cpSync(DIST, root, { recursive: true, filter: (src) => !src.startsWith(path.join(DIST, 'model')) });
  const web = await startStatic({ root, prefix: '/' });
  // Q5_0, Q8_0, Q4_K and Q6_K tensors in one file.
  const gguf = quantizedGguf('Q4_K_M');
  const builtIn = 'This copy of Satori is served without the in-browser model.';
  try {
    await withApp(e2e.browser, web.url, t, async (app) => {
      const { page } = app;
      const answered = async (question) => {
        await sendMessage(page, question, { timeout: 60_000 });
        await waitIdle(page, { timeout: 180_000 });
        assert.equal(await waitForStatus(lastAssistant(page), ['complete', 'incomplete', 'error', 'stopped']), 'complete',
          `the reply: ${await textOf(lastAssistant(page))}; alerts: ${await alerts(page).allInnerTexts()}`);
        assert.ok((await textOf(lastAssistant(page))).trim().length > 0);
      };
      const refused = async () => {
        await sendMessage(page, 'Hello?', { timeout: 60_000 });
        await alerts(page).first().waitFor({ timeout: 60_000 });
        await waitIdle(page, { timeout: 60_000 });
        // The model's own sentence, not a server's "internal error".
        assert.equal((await alerts(page).first().innerText()).split('\n')[0], builtIn);
      };
      await configure(page, { provider: PROVIDER, maxTokens: 8 });
      await refused();
      const fromModel = () => app.requests.filter((u) => u.includes('/model/'));
      const asked = fromModel().length; // the manifest, answered 404

      // Settings: the built-in model is in use; a file that is no model is refused and changes nothing.
      const settings = async () => {
        await page.getByRole('button', byName('Settings')).first().click();
        const dialog = page.getByRole('dialog', byName('Settings'));
        await dialog.waitFor({ state: 'visible' });
        return dialog;
      };
      let dialog = await settings();
      const note = dialog.getByRole('status').filter({ hasText: /^Model:/ });
      await poll(async () => (await note.innerText().catch(() => '')) === 'Model: the built-in SmolLM2-135M.', { message: 'the built-in model named' });
      const file = dialog.getByLabel('Model file (GGUF)');
      await pickFile(file, { name: 'notes.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from('# not a model\n'.repeat(50)) });
      const error = dialog.getByRole('alert');
      await poll(async () => /“notes\.gguf” cannot run in the browser/.test(await error.innerText().catch(() => '')), { message: 'the file refused' });
      await poll(async () => (await note.innerText()) === 'Model: the built-in SmolLM2-135M.', { message: 'nothing changed' });
      assert.equal(await dialog.getByRole('button', byName('Use the built-in model')).isVisible(), false);
      // A file over 2 GB (and the model's state) would not fit in wasm's 4 GB: refused from its
      // size, before a byte is read. Made in the page from one megabyte referenced 2 100 times.
      await poll(() => file.isEnabled(), { message: 'the model file input enabled' });
      await file.evaluate((input) => {
        const mb = new Blob([new Uint8Array(1 << 20)]);
        const data = new DataTransfer();
        data.items.add(new File(Array(2100).fill(mb), 'huge.gguf'));
        input.files = data.files;
        input.dispatchEvent(new Event('change', { bubbles: true }));
      });
      await poll(async () => {
        const said = await error.innerText().catch(() => '');
        if (!/“huge\.gguf” cannot run in the browser: it is 2203 MB, and at most 2147 MB fit in its memory\./.test(said)) throw new Error(`the alert: ${said}`);
        return true;
      }, { message: 'the huge file refused from its size' });
      await poll(async () => (await note.innerText()) === 'Model: the built-in SmolLM2-135M.', { message: 'nothing changed' });

      // The real model file: checked, kept, in use at once.
      await pickFile(file, gguf);
      const mb = Math.round(fs.statSync(gguf).size / 1e6);
      await poll(async () => (await note.innerText()) === `Model: “${path.basename(gguf)}”, ${mb} MB, 30 layers of 576. Kept in this browser.`,
        { timeout: 60_000, message: `the picked file named (${await note.innerText()})` });
      assert.equal(await error.isVisible(), false, 'the earlier error is gone');
      await dialog.getByRole('button', byName('Cancel')).click();
      // The worker was started anew with the file: typing reads it into memory before any send.
      await watchProgress(page);
      await page.getByRole('textbox', byName('Message')).fill('N');
      await poll(async () => (await page.evaluate(() => window.__progress)).some((p) => p.label === 'Loading the in-browser model'),
        { timeout: 60_000, message: 'the picked model read in while typing' });
      await answered('Name a color.');
      assert.deepEqual(fromModel().slice(asked), [], 'nothing asked of model/ once the file was picked');

      // A reload: the kept file answers, with nothing picked again.
      await reload(page);
      await answered('Name a fruit.');

      // Back to the built-in model, which this host does not have.
      dialog = await settings();
      await dialog.getByRole('button', byName('Use the built-in model')).click();
      await poll(async () => (await dialog.getByRole('status').filter({ hasText: /^Model:/ }).innerText()) === 'Model: the built-in SmolLM2-135M.', { message: 'the built-in model again' });
      await dialog.getByRole('button', byName('Cancel')).click();
      await refused();
    });
  } finally {
    await web.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the in-browser model: a damaged piece is refused and fetched again on the next send; once stored, the model answers offline', async (t) => {
  // A copy of dist/ whose third piece has one byte changed, as a broken proxy or disk might.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-damaged-'));
  fs.cpSync(DIST, root, { recursive: true });
  const damaged = path.join(root, 'model', MANIFEST.pieces[2].file);
  const good = fs.readFileSync(damaged);
  const bad = Buffer.from(good);
  bad[bad.length >> 1] ^= 0xff;
  fs.writeFileSync(damaged, bad);
  const web = await startStatic({ root, prefix: '/' });
  try {
    await withApp(e2e.browser, web.url, t, async (app) => {
      const { page, context } = app;
      const status = async () => waitForStatus(lastAssistant(page), ['complete', 'incomplete', 'error', 'stopped']);
      await configure(page, { provider: PROVIDER, maxTokens: 8 });
      await sendMessage(page, 'Hello!', { timeout: 60_000 });
      await alerts(page).first().waitFor({ timeout: 180_000 });
      await waitIdle(page, { timeout: 60_000 });
      assert.equal((await alerts(page).first().innerText()).split('\n')[0],
        'A piece of the in-browser model arrived damaged (its hash is wrong). Send again to download it again.');
      const before = modelPieces(app);
      assert.ok(before.some((u) => u.endsWith(MANIFEST.pieces[2].file)), `the damaged piece was fetched: ${before}`);
      assert.ok(!before.some((u) => u.endsWith(MANIFEST.pieces[3].file)), 'nothing after it');

      // Repaired on the host: the next send fetches only what was not kept, and answers.
      fs.writeFileSync(damaged, good);
      await sendMessage(page, 'Hello again!', { timeout: 60_000 });
      await waitIdle(page, { timeout: 180_000 });
      assert.equal(await status(), 'complete', `alerts: ${await alerts(page).allInnerTexts()}`);
      const again = modelPieces(app).slice(before.length);
      assert.deepEqual(again.map((u) => path.basename(u)), MANIFEST.pieces.slice(2).map((p) => p.file),
        'only the damaged piece and the ones after it');

      // Offline, once the service worker keeps the app: the stored model answers after a reload.
      await poll(() => page.evaluate(async () => Boolean(navigator.serviceWorker.controller)
        && (await caches.keys()).some((n) => n.startsWith('satori:'))), { timeout: 30_000, message: 'the app kept by its service worker' });
      const fetched = modelPieces(app).length;
      await context.setOffline(true);
      await reload(page);
      await sendMessage(page, 'Name a color.', { timeout: 60_000 });
      await waitIdle(page, { timeout: 180_000 });
      assert.equal(await status(), 'complete', `offline: ${await alerts(page).allInnerTexts()}`);
      assert.ok((await textOf(lastAssistant(page))).trim().length > 0);
      assert.equal(modelPieces(app).length, fetched, 'no model bytes asked for offline');
      await context.setOffline(false);
    });
  } finally {
    await web.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a GGUF file picked where the browser will not keep it runs for this visit, handed to each new worker', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-nomodel-'));
  fs.cpSync(DIST, root, { recursive: true, filter: (src) => !src.startsWith(path.join(DIST, 'model')) });
  const web = await startStatic({ root, prefix: '/' });
  const gguf = await smollm2Gguf();
  try {
    await withApp(e2e.browser, web.url, t, async (app) => {
      const { page, context } = app;
      // A quota far below the file: the Cache API refuses to keep it.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.origin, quotaSize: 1_000_000 });
      await configure(page, { provider: PROVIDER, maxTokens: 8 });
      await page.getByRole('button', byName('Settings')).first().click();
      const dialog = page.getByRole('dialog', byName('Settings'));
      const note = dialog.getByRole('status').filter({ hasText: /^Model:/ });
      await poll(async () => (await note.innerText().catch(() => '')) === 'Model: the built-in SmolLM2-135M.', { message: 'the built-in model named' });
      await pickFile(dialog.getByLabel('Model file (GGUF)'), gguf);
      await poll(async () => /For this visit only: the browser did not keep it/.test(await note.innerText()),
        { timeout: 60_000, message: 'the file not kept, said so' });
      await dialog.getByRole('button', byName('Cancel')).click();
      // The worker was replaced after the pick: the new one has the file from the page.
      await sendMessage(page, 'Name a color.', { timeout: 60_000 });
      await waitIdle(page, { timeout: 180_000 });
      assert.equal(await waitForStatus(lastAssistant(page), ['complete', 'incomplete', 'error', 'stopped']), 'complete',
        `alerts: ${await alerts(page).allInnerTexts()}`);
      assert.ok((await textOf(lastAssistant(page))).trim().length > 0);
      const kept = await page.evaluate(async () => (await caches.keys()).includes('satori-model-file')
        && (await (await caches.open('satori-model-file')).keys()).length);
      assert.ok(!kept, 'nothing half-kept in the cache');
    });
  } finally {
    await web.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
