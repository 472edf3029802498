// Checks of the browser helpers in a real Chromium, against the contract mock page
// (tests/e2e/support/contract-mock/, NOT the app), so that the helpers are known to work
// independently of the app under test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startFakeLlm } from './support/fake-llm.mjs';
import { startStatic } from './support/static-server.mjs';
import { supportDir } from './support/env.mjs';
import {
  launch,
  withApp,
  openApp,
  configure,
  waitIdle,
  sendMessage,
  lastAssistant,
  textOf,
  waitForStatus,
  recordAssistantTexts,
  partialTexts,
  stopButton,
  localStorageEntries,
  chatList,
  poll,
  sleep,
} from './support/browser.mjs';

let fake;
let web;
let browser;

before(async () => {
  fake = await startFakeLlm();
  web = await startStatic({ root: path.join(supportDir, 'contract-mock'), prefix: '/mock/' });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await web?.close();
  await fake?.close();
});

test('openApp records requests, console output, page errors and dialogs (dismissing them)', async () => {
  const app = await openApp(browser, web.url);
  try {
    await app.page.evaluate(() => {
      console.log('hello from the page');
      console.error('an error line');
      setTimeout(() => {
        throw new Error('boom from the page');
      });
    });
    const answer = await app.page.evaluate(() => {
      alert('xss?');
      return confirm('sure?');
    });
    assert.equal(answer, false, 'dialogs are dismissed');
    await poll(() => app.pageErrors.length > 0, { message: 'the page error' });
    assert.deepEqual(app.dialogAlerts, [
      { type: 'alert', message: 'xss?' },
      { type: 'confirm', message: 'sure?' },
    ]);
    assert.ok(app.consoleMessages.some((m) => m.type === 'log' && m.text === 'hello from the page'));
    assert.ok(app.consoleErrors.includes('an error line'), JSON.stringify(app.consoleErrors));
    assert.match(app.pageErrors[0], /boom from the page/);
    assert.ok(app.requests.includes(web.url), 'the page load itself is in the request log');
  } finally {
    await app.close();
  }
});

test('configure fills Settings by accessible name; send, stream recording, waitIdle', async (t) => {
  await withApp(browser, web.url, t, async ({ page, requests }) => {
    fake.reset();
    await configure(page, { baseUrl: fake.baseUrl, model: 'fake-large', apiKey: 'sk-harness', maxTokens: 77, stallSeconds: 9, temperature: 0.3 });
    const saved = JSON.parse((await localStorageEntries(page))['satori.settings']);
    assert.deepEqual(
      { provider: saved.provider, baseUrl: saved.baseUrl, model: saved.model, apiKey: saved.apiKey, maxTokens: saved.maxTokens, stallSeconds: saved.stallSeconds, temperature: saved.temperature },
      { provider: 'Custom', baseUrl: fake.baseUrl, model: 'fake-large', apiKey: 'sk-harness', maxTokens: 77, stallSeconds: 9, temperature: 0.3 },
    );

    fake.enqueue({ chunks: ['one ', 'two ', 'three ', 'four'], delayMs: 150 });
    const stop = await recordAssistantTexts(page);
    await sendMessage(page, 'Count');
    await waitIdle(page);
    const entries = await stop();
    assert.equal(await waitForStatus(lastAssistant(page), 'complete'), 'complete');
    assert.equal(await textOf(lastAssistant(page)), 'one two three four');
    assert.deepEqual(partialTexts(entries, 'one two three four'), ['one', 'one two', 'one two three']);
    assert.equal(fake.chatRequests()[0].headers.authorization, 'Bearer sk-harness');
    assert.ok(requests.some((u) => u.startsWith(fake.baseUrl)), 'API requests are in the request log');
    assert.deepEqual(await chatList(page), [{ title: 'Count', current: 'page' }]);
  });
});

test('waitIdle waits for a slow stream; an abort from the page is seen by the fake server', async (t) => {
  await withApp(browser, web.url, t, async ({ page }) => {
    fake.reset();
    await configure(page, { baseUrl: fake.baseUrl, model: 'fake-small' });
    fake.enqueue({ chunks: ['a ', 'b ', 'c ', 'd ', 'e '], delayMs: 400 });
    await sendMessage(page, 'Slow');
    const waited = waitIdle(page).then(() => 'idle');
    assert.equal(await Promise.race([waited, sleep(600).then(() => 'busy')]), 'busy', 'waitIdle does not return while streaming');
    await stopButton(page).click();
    assert.equal(await waited, 'idle');
    assert.equal(await waitForStatus(lastAssistant(page), 'stopped'), 'stopped');
    assert.equal(await fake.chatRequests()[0].closed, 'aborted');
  });
});
