// Installable and offline: a visited Satori opens with no network (its service worker keeps the
// build's files), shows its chats, searches and exports them; sending says it is offline; a new
// deploy is offered with "Reload" and taken only on that click. Served under a sub-path from a
// copy of dist/, so the test can deploy a changed build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { startFakeLlm } from './support/fake-llm.mjs';
import { startStatic } from './support/static-server.mjs';
import { requireDist } from './support/env.mjs';
import {
  launch,
  withApp,
  byName,
  configure,
  sendMessage,
  waitIdle,
  waitForStatus,
  lastAssistant,
  textOf,
  poll,
  reload,
  articles,
  chatAction,
} from './support/browser.mjs';

const PREFIX = '/apps/satori/';

/** Waits until the page is controlled by Satori's service worker and it has kept every file. */
async function offlineReady(page) {
  await poll(
    () => page.evaluate(async () => {
      if (!navigator.serviceWorker.controller) return false;
      const names = await caches.keys();
      return names.some((n) => n.startsWith('satori:'));
    }),
    { message: 'the service worker controls the page with its files kept', timeout: 30_000 },
  );
}

test('offline: a visited Satori opens, shows, searches and exports its chats with no network; a new version waits for "Reload"', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-offline-'));
  fs.cpSync(requireDist(), root, { recursive: true });
  const fake = await startFakeLlm();
  const web = await startStatic({ root, prefix: PREFIX });
  const browser = await launch();
  try {
    await withApp(browser, web.url, t, async (app) => {
      const { page, context } = app;
      await configure(page, { baseUrl: fake.baseUrl, model: 'fake-small' });
      await sendMessage(page, 'Order 4711 ships to Kyoto');
      await waitIdle(page);
      await waitForStatus(lastAssistant(page), 'complete');
      await offlineReady(page);
      const manifest = await page.evaluate(async () => {
        const link = document.querySelector('link[rel="manifest"]');
        return (await fetch(link.href)).json();
      });
      assert.equal(manifest.name, 'Satori');
      assert.ok(manifest.icons.some((i) => i.sizes === '512x512'), 'an icon for installing');

      // No network: the page, its files and the chat are all there. (The API server is now one
      // on another machine — `.invalid` never resolves, and nothing leaves the browser offline:
      // a server on this machine would still be tried.)
      await page.evaluate(() => {
        const s = JSON.parse(localStorage.getItem('satori.settings'));
        localStorage.setItem('satori.settings', JSON.stringify({ ...s, base_url: 'https://api.example.invalid/v1' }));
      });
      await context.setOffline(true);
      await reload(page);
      await poll(async () => (await articles(page, 'user').count()) === 1, { message: 'the chat shown offline' });
      assert.equal(await textOf(articles(page, 'user').first()), 'Order 4711 ships to Kyoto');
      assert.equal(await textOf(lastAssistant(page)), 'Echo: Order 4711 ships to Kyoto');
      // Search (the dialogs module, kept by the service worker).
      await page.getByRole('button', byName('Search chats')).click();
      const search = page.getByRole('dialog', byName('Search chats'));
      await search.getByRole('searchbox', byName('Search chats')).fill('Kyoto');
      await search.getByRole('status').filter({ hasText: '1 chat matches.' }).waitFor();
      await search.getByRole('button', byName('Close')).click();
      // Export.
      await chatAction(page, 'Export chat');
      const dialog = page.getByRole('dialog', byName('Export chat'));
      const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', byName('Download JSON')).click()]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      const exported = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
      assert.ok(JSON.stringify(exported.chats).includes('Order 4711 ships to Kyoto'), 'the chat exported offline');
      // Sending says why it cannot.
      await sendMessage(page, 'Are you there?');
      await waitIdle(page);
      const alert = page.getByRole('alert').filter({ hasText: /offline/i });
      await alert.waitFor();
      assert.match(await alert.innerText(), /You are offline/);
      assert.equal(await textOf(articles(page, 'user').last()), 'Are you there?', 'the message is kept');

      // Back online, a new version is deployed: offered, never taken by itself.
      await context.setOffline(false);
      const sw = path.join(root, 'sw.js');
      const before = fs.readFileSync(sw, 'utf8');
      const version = /"([0-9a-f]{16})"/.exec(before)[1];
      const changed = before.replace(version, 'feedfacecafe0001');
      // As a deploy does: the worker and its precompressed copies, which the server prefers.
      fs.writeFileSync(sw, changed);
      fs.writeFileSync(`${sw}.gz`, zlib.gzipSync(changed));
      fs.writeFileSync(`${sw}.br`, zlib.brotliCompressSync(changed));
      await reload(page);
      const notice = page.getByRole('status').filter({ hasText: 'New version of Satori.' });
      await notice.waitFor({ timeout: 30_000 });
      // Installed beside the old one, waiting: the page still runs the old version.
      const scope = web.url;
      const both = [`satori:${scope}:${version}`, `satori:${scope}:feedfacecafe0001`].sort();
      assert.deepEqual((await page.evaluate(() => caches.keys())).sort(), both);
      assert.ok(await page.evaluate(async () => !!(await navigator.serviceWorker.getRegistration()).waiting), 'the new version waits');
      await page.waitForTimeout(1000);
      assert.ok(await notice.isVisible(), 'no reload by itself');
      await notice.getByRole('button', byName('Reload')).click();
      await page.waitForEvent('load');
      await page.getByRole('textbox', byName('Message')).waitFor();
      await poll(async () => await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).active?.scriptURL && !(await navigator.serviceWorker.getRegistration()).waiting), { message: 'the new version in charge' });
      // The version before it is kept (another tab may still run it).
      assert.deepEqual((await page.evaluate(() => caches.keys())).sort(), both);
      assert.equal(await notice.count(), 0, 'no notice once the new version runs');
      await poll(async () => (await articles(page, 'user').count()) === 2, { message: 'the chat after the update' });
    });
  } finally {
    await browser.close();
    await web.close();
    await fake.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
