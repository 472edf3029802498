// The app must work when served from a sub-path (e.g. GitHub Pages project sites): every asset is
// loaded relative to the page, and a chat round trip persists across a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './support/app.mjs';
import {
  configure,
  waitIdle,
  sendMessage,
  articles,
  lastAssistant,
  lastUser,
  textOf,
  waitForStatus,
  poll,
  reload,
  byName,
} from './support/browser.mjs';

const PREFIX = '/tools/satori/';

const e2e = useApp({ prefix: PREFIX });

test(`served under ${PREFIX}: a chat round trip works and persists across a reload`, async (t) => {
  assert.ok(e2e.web.url.endsWith(PREFIX));
  await e2e.open(t, async (app) => {
    const { page } = app;
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-large', apiKey: 'sk-e2e-subpath' });
    await sendMessage(page, 'Subpath hello');
    await waitIdle(page);
    assert.equal(await waitForStatus(lastAssistant(page), 'complete'), 'complete');
    assert.equal(await textOf(lastAssistant(page)), 'Echo: Subpath hello');
    assert.equal(e2e.fake.chatRequests().at(-1).body.model, 'fake-large');

    await reload(page);
    await poll(async () => (await articles(page, 'assistant').count()) === 1, { message: 'the restored reply' });
    assert.equal(await textOf(lastUser(page)), 'Subpath hello');
    assert.equal(await textOf(lastAssistant(page)), 'Echo: Subpath hello');
    assert.ok(page.url().startsWith(e2e.web.url), `the app stays on its sub-path (${page.url()})`);

    // Every request to the app's own origin stayed under the prefix (Chromium's automatic
    // /favicon.ico probe aside), and none of them failed.
    const own = app.requests.filter((u) => new URL(u).origin === e2e.web.origin);
    assert.ok(own.length >= 3, `the page and its assets were loaded from ${e2e.web.origin}`);
    const outside = own.filter((u) => !new URL(u).pathname.startsWith(PREFIX) && new URL(u).pathname !== '/favicon.ico');
    assert.deepEqual(outside, [], `all app requests stay under ${PREFIX}`);
    const failed = app.responses.filter(
      (r) => new URL(r.url).origin === e2e.web.origin && r.status >= 400 && new URL(r.url).pathname !== '/favicon.ico',
    );
    assert.deepEqual(failed, [], 'no app asset failed to load');
    assert.ok(
      app.responses.some((r) => r.url.startsWith(e2e.web.url) && new URL(r.url).pathname.endsWith('.wasm') && r.status === 200),
      'the wasm module was loaded from under the prefix',
    );
  });
});

test(`served under ${PREFIX}: Settings says once that other pages of the origin could read the key and chats`, async (t) => {
  await e2e.open(t, async ({ page }) => {
    const settings = async () => {
      await page.getByRole('button', byName('Settings')).first().click();
      const dialog = page.getByRole('dialog', byName('Settings'));
      await dialog.waitFor();
      return dialog;
    };
    let dialog = await settings();
    const note = dialog.getByRole('note');
    await note.waitFor();
    assert.equal(
      await note.locator('p').innerText(),
      `Satori is served under the folder ${PREFIX} of ${e2e.web.origin}. Every other page of that origin can read what Satori keeps in this browser, your API key and chats included. Give Satori an origin of its own, such as a subdomain (see the README on hosting).`,
    );
    // Dismissed: not again, here or after a reload.
    await note.getByRole('button', byName('Dismiss the shared-origin warning')).click();
    await note.waitFor({ state: 'hidden' });
    await dialog.getByRole('button', byName('Cancel')).click();
    dialog = await settings();
    assert.equal(await dialog.getByRole('note').isVisible(), false);
    await dialog.getByRole('button', byName('Cancel')).click();
    await reload(page);
    dialog = await settings();
    assert.equal(await dialog.getByRole('note').isVisible(), false);
    assert.equal(await page.evaluate(() => localStorage.getItem('satori.origin_notice')), PREFIX);
  });
});
