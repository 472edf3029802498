// The API key goes only to the server it was saved for: not to a base URL typed by hand after it
// was saved for another, not along a redirect, and a key for a plain-http remote host is flagged.
// See: #9
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlm } from './support/fake-llm.mjs';
import { startStatic } from './support/static-server.mjs';
import { requireDist } from './support/env.mjs';
import {
  launch,
  withApp,
  configure,
  waitIdle,
  sendMessage,
  lastAssistant,
  waitForStatus,
  byName,
  reload,
  poll,
} from './support/browser.mjs';

const KEY_A = 'sk-e2e-key-for-a-5f2';
const KEY_B = 'sk-e2e-key-for-b-9c4';

let a;
let b;
let web;
let browser;

before(async () => {
  const dist = requireDist();
  a = await startFakeLlm();
  b = await startFakeLlm();
  web = await startStatic({ root: dist });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await web?.close();
  await b?.close();
  await a?.close();
});

async function chat(page, text) {
  await sendMessage(page, text);
  await waitIdle(page);
  await waitForStatus(lastAssistant(page), 'complete');
}

async function openSettings(page) {
  await page.getByRole('button', byName('Settings')).first().click();
  const dialog = page.getByRole('dialog', byName('Settings'));
  await dialog.waitFor({ state: 'visible' });
  return dialog;
}

async function saveSettings(dialog) {
  await dialog.getByRole('button', byName('Save')).click();
  await dialog.waitFor({ state: 'hidden' });
}

const keyField = (dialog) => dialog.getByLabel('API key', { exact: true });
const baseField = (dialog) => dialog.getByLabel('API base URL', { exact: true });
const storedKey = (page) => page.evaluate(() => localStorage.getItem('satori.api_key'));

/** Every header value any request to `server` carried, joined: the key must be in none of them. */
function allHeaders(server) {
  return server.requests.map((r) => JSON.stringify(r.headers)).join('\n');
}

test('a base URL typed by hand after the key was saved for another server never receives it', async (t) => {
  await withApp(browser, web.url, t, async ({ page }) => {
    a.reset();
    b.reset();
    await configure(page, { baseUrl: a.baseUrl, model: 'fake-small', apiKey: KEY_A });
    await chat(page, 'To A');
    assert.equal(a.chatRequests().at(-1).headers.authorization, `Bearer ${KEY_A}`, 'A gets its key');

    // Type B's URL by hand, key by key, and save without touching the key field.
    const dialog = await openSettings(page);
    assert.equal(await keyField(dialog).inputValue(), KEY_A, 'the dialog shows the key saved for A');
    await baseField(dialog).fill('');
    await baseField(dialog).pressSequentially(b.baseUrl);
    assert.equal(await keyField(dialog).inputValue(), '', 'the key field is emptied when the URL changes');
    await dialog.getByRole('status').filter({ hasText: 'API key field was emptied' }).waitFor();
    await saveSettings(dialog);

    await chat(page, 'To B');
    const sent = b.chatRequests().at(-1);
    assert.ok(sent, 'the chat went to B');
    assert.equal(sent.headers.authorization, undefined, 'B never gets the key saved for A');
    assert.ok(!allHeaders(b).includes(KEY_A), 'no request to B (model list included) carried the key');
    const record = JSON.parse(await storedKey(page));
    assert.equal(record.base_url, a.baseUrl, 'the stored key stays bound to A');

    // After a reload too.
    await reload(page);
    await chat(page, 'To B after reload');
    assert.equal(b.chatRequests().at(-1).headers.authorization, undefined);
    assert.ok(!allHeaders(b).includes(KEY_A));

    // Back to A: its key is there again and goes to A.
    const back = await openSettings(page);
    await baseField(back).fill(a.baseUrl);
    assert.equal(await keyField(back).inputValue(), KEY_A, 'going back to A shows A\'s key');
    await saveSettings(back);
    await chat(page, 'Back to A');
    assert.equal(a.chatRequests().at(-1).headers.authorization, `Bearer ${KEY_A}`);
  });
});

test('choosing "Custom" and typing a URL does not carry the key; a key typed for the new server goes there', async (t) => {
  await withApp(browser, web.url, t, async ({ page }) => {
    a.reset();
    b.reset();
    await configure(page, { baseUrl: a.baseUrl, model: 'fake-small', apiKey: KEY_A });
    const dialog = await openSettings(page);
    await dialog.getByRole('combobox', byName('Provider')).selectOption({ label: 'OpenAI' });
    await dialog.getByRole('combobox', byName('Provider')).selectOption({ label: 'Custom' });
    await baseField(dialog).fill(a.baseUrl);
    assert.equal(await keyField(dialog).inputValue(), KEY_A, 'back on A the key for A is shown');
    await dialog.getByRole('combobox', byName('Provider')).selectOption({ label: 'Custom' });
    await baseField(dialog).fill(b.baseUrl);
    await dialog.getByLabel('Model', { exact: true }).fill('fake-small');
    assert.equal(await keyField(dialog).inputValue(), '', 'the key for A is not offered for B');
    await saveSettings(dialog);
    await chat(page, 'Custom B, no key');
    assert.equal(b.chatRequests().at(-1).headers.authorization, undefined);

    // A key typed for B is B's.
    const again = await openSettings(page);
    assert.equal(await keyField(again).inputValue(), '', 'B has no key yet');
    await keyField(again).fill(KEY_B);
    await saveSettings(again);
    await chat(page, 'Custom B with its key');
    assert.equal(b.chatRequests().at(-1).headers.authorization, `Bearer ${KEY_B}`);
    assert.ok(!allHeaders(b).includes(KEY_A), 'A\'s key never reached B');
    assert.deepEqual(JSON.parse(await storedKey(page)), { v: 1, key: KEY_B, base_url: b.baseUrl });

    // Typing a key, then changing the URL: the key stays with the URL it was typed for.
    const third = await openSettings(page);
    await baseField(third).fill(a.baseUrl);
    assert.equal(await keyField(third).inputValue(), '', 'A\'s old key was replaced by B\'s record');
    await saveSettings(third);
    await chat(page, 'A without a key');
    assert.equal(a.chatRequests().at(-1).headers.authorization, undefined, 'B\'s key never goes to A');
    assert.ok(!allHeaders(a).includes(KEY_B));
  });
});

test('Settings saved while storage is full apply in this tab, say they were not saved, and the stored key stays bound', async (t) => {
  await withApp(browser, web.url, t, async ({ page }) => {
    a.reset();
    b.reset();
    await configure(page, { baseUrl: a.baseUrl, model: 'fake-small', apiKey: KEY_A });
    const before = await page.evaluate(() => [localStorage.getItem('satori.settings'), localStorage.getItem('satori.api_key')]);
    // Fill the quota to the last unit (real localStorage, real QuotaExceededError).
    await page.evaluate(() => {
      let size = 1 << 20;
      for (let i = 0; size >= 1; i++) {
        try { localStorage.setItem(`filler.${i}`, 'x'.repeat(size)); } catch { size = size >> 1; }
      }
    });
    // A longer model name makes the settings record grow, so it cannot be written.
    await configure(page, { baseUrl: b.baseUrl, model: 'fake-small-with-a-longer-name', apiKey: KEY_B });
    await page.getByRole('alert').filter({ hasText: /storage is full/i }).waitFor();
    await chat(page, 'Full storage, new server');
    assert.equal(b.chatRequests().at(-1).headers.authorization, `Bearer ${KEY_B}`, 'the new settings and key are used in this tab');
    assert.ok(!allHeaders(b).includes(KEY_A), 'A\'s key never reached B');
    const after = await page.evaluate(() => [localStorage.getItem('satori.settings'), localStorage.getItem('satori.api_key')]);
    assert.deepEqual(after, before, 'the stored records are unchanged');
    await page.evaluate(() => { for (const k of Object.keys(localStorage)) if (k.startsWith('filler.')) localStorage.removeItem(k); });
  });
});

test('a redirect is not followed: the key stays home and the alert says why', async (t) => {
  await withApp(browser, web.url, t, async ({ page }) => {
    a.reset();
    b.reset();
    await configure(page, { baseUrl: a.baseUrl, model: 'fake-small', apiKey: KEY_A });
    b.reset();
    a.enqueue({ status: 307, headers: { Location: `${b.baseUrl}/chat/completions` }, body: '' });
    await sendMessage(page, 'Follow me');
    const alert = page.getByRole('alert').filter({ hasText: 'redirect' });
    await alert.waitFor({ state: 'visible' });
    assert.match(await alert.innerText(), /does not follow redirects/);
    assert.match(await alert.innerText(), new RegExp(a.baseUrl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
    await waitIdle(page);
    assert.equal(b.chatRequests().length, 0, 'the redirect target got no request');
    assert.ok(!allHeaders(b).includes(KEY_A));
    // The next send works.
    await chat(page, 'Now without redirect');
    assert.equal(a.chatRequests().at(-1).headers.authorization, `Bearer ${KEY_A}`);
  });
});

test('a key for a plain-http server on another machine gets a warning; loopback does not', async (t) => {
  await withApp(browser, web.url, t, async ({ page }) => {
    // A key saved for the fake server, reached over plain http on this machine.
    assert.match(a.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await configure(page, { baseUrl: a.baseUrl, model: 'fake-small', apiKey: KEY_A });
    const dialog = await openSettings(page);
    const warning = dialog.getByText('the API key would travel unencrypted');
    // Two frames: whatever the last input changes has been drawn.
    const settled = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
    const warnedFor = async (url) => {
      await baseField(dialog).fill(url);
      await keyField(dialog).fill('sk-e2e-plain');
      assert.equal(await keyField(dialog).inputValue(), 'sk-e2e-plain');
      await settled();
      return warning.isVisible();
    };

    // Another machine over plain http: warned.
    await baseField(dialog).fill('http://api.example.test/v1');
    await keyField(dialog).fill('sk-e2e-plain');
    await warning.waitFor({ state: 'visible' });
    // Back to the server on 127.0.0.1: the field shows its saved key again and the warning goes.
    await baseField(dialog).fill(a.baseUrl);
    assert.equal(await keyField(dialog).inputValue(), KEY_A, 'the key saved for the loopback server is back');
    await warning.waitFor({ state: 'hidden' });

    // A key typed for other loopback forms, each right after a warned remote URL.
    for (const url of ['http://localhost:11434/v1', 'http://[::1]:8080/v1', 'http://127.1.2.3/v1']) {
      assert.equal(await warnedFor('http://api.example.test/v1'), true, 'warned for the remote host');
      assert.equal(await warnedFor(url), false, `no warning for ${url}`);
    }
    // https to another machine is not warned; a host that only starts with "localhost" is.
    assert.equal(await warnedFor('http://api.example.test/v1'), true);
    assert.equal(await warnedFor('https://api.example.test/v1'), false, 'no warning for https');
    assert.equal(await warnedFor('http://localhost.evil.test/v1'), true, 'localhost.evil.test is another machine');
    await dialog.getByRole('button', byName('Cancel')).click();
  });
});

test('the API key is in no cache: no entry the service worker keeps has it in its address, headers or body', async (t) => {
  // See: #37. The security review found none; this keeps it so.
  await withApp(browser, web.url, t, async ({ page }) => {
    a.reset();
    await configure(page, { baseUrl: a.baseUrl, model: 'fake-small', apiKey: KEY_A });
    await chat(page, 'Cache check');
    await reload(page);
    await chat(page, 'Cache check again');
    assert.equal(a.chatRequests().at(-1).headers.authorization, `Bearer ${KEY_A}`, 'the key is used');
    await poll(
      () => page.evaluate(async () => !!navigator.serviceWorker.controller && (await caches.keys()).some((k) => k.startsWith('satori:'))),
      { message: 'the service worker in charge, the app kept', timeout: 30_000 },
    );
    const seen = await page.evaluate(async (key) => {
      const out = { entries: 0, leaks: [] };
      for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        for (const request of await cache.keys()) {
          out.entries += 1;
          const response = await cache.match(request);
          const text = [
            name,
            request.url,
            JSON.stringify([...request.headers]),
            JSON.stringify([...response.headers]),
            await response.text(),
          ].join('\n');
          if (text.includes(key)) out.leaks.push(`${name}: ${request.url}`);
        }
      }
      return out;
    }, KEY_A);
    assert.ok(seen.entries >= 5, `the caches hold the app (${seen.entries} entries)`);
    assert.deepEqual(seen.leaks, [], 'the key is in no cache entry');
  });
});
