// Failure modes: HTTP errors, rate limits, unreachable server, wrong content type, errors inside
// the stream, cut and stalled streams, and a first run with nothing configured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { sseContent, sseData } from './support/fake-llm.mjs';
import { useApp } from './support/app.mjs';
import {
  configure,
  waitIdle,
  sendMessage,
  alerts,
  articles,
  lastAssistant,
  textOf,
  waitForStatus,
  poll,
  byName,
  sleep,
} from './support/browser.mjs';

const e2e = useApp();

async function setup(page, extra = {}) {
  e2e.fake.reset();
  await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-errors', ...extra });
}

/** Waits for a visible alert and returns its text. */
async function alertText(page, { timeout = 30_000 } = {}) {
  const alert = alerts(page).filter({ hasText: /\S/ }).first();
  await alert.waitFor({ state: 'visible', timeout });
  return (await alert.innerText()).trim();
}

test('401: the alert points at the API key in Settings and shows the server message', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.setDefault({ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } });
    await sendMessage(page, 'Hi');
    const text = await alertText(page);
    assert.match(text, /API key/i, text);
    assert.match(text, /Settings/, text);
    assert.match(text, /Incorrect API key provided/, text);
    await waitIdle(page);
  });
});

test('404: the alert points at the base URL and the model', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.setDefault({ status: 404, body: { error: { message: 'The model `fake-small` does not exist' } } });
    await sendMessage(page, 'Hi');
    const text = await alertText(page);
    assert.match(text, /base URL/i, text);
    assert.match(text, /model/i, text);
    await waitIdle(page);
  });
});

test('500: the alert reports a server error with the server message', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    // Every attempt fails, so automatic retries (if any) cannot turn this into a success.
    e2e.fake.setDefault({ status: 500, body: { error: { message: 'Internal meltdown' } } });
    await sendMessage(page, 'Hi');
    const text = await alertText(page, { timeout: 60_000 });
    assert.match(text, /server/i, text);
    assert.match(text, /Internal meltdown|500/, text);
    await waitIdle(page, { timeout: 60_000 });
  });
});

test('429 with Retry-After: the app retries by itself and the reply arrives', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const limited = { status: 429, headers: { 'Retry-After': '1' }, body: { error: { message: 'Rate limit reached' } } };
    e2e.fake.enqueue(limited, limited, { chunks: ['Finally ', 'here.'] });
    await sendMessage(page, 'Hi');
    await poll(async () => (await textOf(lastAssistant(page))) === 'Finally here.', {
      timeout: 30_000,
      message: 'the reply after two 429 responses',
    });
    await waitIdle(page);
    assert.equal(await waitForStatus(lastAssistant(page), 'complete'), 'complete');
    assert.equal(e2e.fake.chatRequests().length, 3, 'two rate-limited attempts and one successful one');
    assert.equal(await alerts(page).filter({ hasText: /\S/ }).count(), 0, 'no error left on screen after the retry succeeded');
  });
});

test('429 with Retry-After as an HTTP date: the countdown waits until that date, then the reply arrives', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    // A date about 6 s ahead (HTTP dates have whole seconds). Without reading dates the app
    // would fall back to its 2 s backoff.
    const at = new Date(Date.now() + 6_000).toUTCString();
    e2e.fake.enqueue(
      { status: 429, headers: { 'Retry-After': at }, body: { error: { message: 'Rate limit reached' } } },
      { chunks: ['After ', 'the date.'] },
    );
    await sendMessage(page, 'Hi');
    const status = page.getByRole('status').filter({ hasText: 'Rate limited' });
    await status.waitFor();
    assert.match(await status.innerText(), /retrying in [5-7] s \(attempt 1 of 3\)/);
    await poll(async () => (await textOf(lastAssistant(page))) === 'After the date.', {
      timeout: 30_000,
      message: 'the reply after the date',
    });
    const [first, second] = e2e.fake.chatRequests();
    assert.ok(second.time - first.time >= 4_000, `the retry waited for the date (${second.time - first.time} ms)`);
  });
});

/** A 127.0.0.1 port with nothing listening on it. */
async function closedPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('unreachable server: the alert says it could not be reached and mentions CORS', async (t) => {
  await e2e.open(t, async ({ page }) => {
    const port = await closedPort();
    e2e.fake.reset();
    await configure(page, { baseUrl: `http://127.0.0.1:${port}/v1`, model: 'fake-small', apiKey: 'sk-e2e-errors' });
    await sendMessage(page, 'Hi');
    const text = await alertText(page, { timeout: 60_000 });
    assert.match(text, /reach/i, text);
    assert.match(text, /CORS/, text);
    await waitIdle(page, { timeout: 60_000 });
  });
});

test('HTML instead of a stream: the alert says the server did not send a stream', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.setDefault({ status: 200, headers: { 'Content-Type': 'text/html' }, body: '<html>captive</html>' });
    await sendMessage(page, 'Hi');
    const text = await alertText(page);
    assert.match(text, /stream/i, text);
    await waitIdle(page);
    // Nothing of the answer arrived: the empty reply is removed, the question stays.
    assert.equal(await articles(page, 'assistant').count(), 0, 'no assistant message is left for a non-stream answer');
    assert.equal(await articles(page, 'user').count(), 1, 'the user message is kept');
  });
});

test('error object inside a 200 stream: shown in the alert, partial reply kept', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const raw = [
      ...sseContent(['Partial ', 'answer'], { finishReason: null, done: false }),
      sseData({ error: { message: 'server_is_overloaded', type: 'server_error' } }),
    ];
    e2e.fake.enqueue({ raw, rawDelayMs: 50 });
    await sendMessage(page, 'Hi');
    const text = await alertText(page);
    assert.match(text, /server_is_overloaded/, text);
    await waitIdle(page);
    const reply = lastAssistant(page);
    assert.match(await textOf(reply), /Partial answer/, 'the partial reply is kept');
    // Every status the reply can end in is awaited; only `incomplete` (with its badge) passes.
    assert.equal(await waitForStatus(reply, ['incomplete', 'complete', 'error', 'stopped']), 'incomplete');
    await reply.getByText('Incomplete', { exact: true }).waitFor({ state: 'visible' });
  });
});

async function expectIncompleteThenRetry(page, partial) {
  const reply = lastAssistant(page);
  assert.equal(await waitForStatus(reply, ['incomplete', 'complete', 'error', 'stopped'], { timeout: 30_000 }), 'incomplete');
  await reply.getByText('Incomplete', { exact: true }).waitFor({ state: 'visible' });
  assert.match(await textOf(reply), partial, 'the partial reply is kept');
  await waitIdle(page);

  const before = e2e.fake.chatRequests().length;
  e2e.fake.enqueue({ chunks: ['Whole ', 'reply ', 'now.'] });
  await reply.getByRole('button', byName('Retry')).click();
  await poll(async () => (await textOf(lastAssistant(page))) === 'Whole reply now.', {
    timeout: 15_000,
    message: 'the complete reply after Retry',
  });
  await waitIdle(page);
  assert.equal(await waitForStatus(lastAssistant(page), 'complete'), 'complete');
  assert.equal(e2e.fake.chatRequests().length, before + 1, 'Retry sent one new request');
  assert.equal(e2e.fake.chatRequests().at(-1).body.messages.at(-1).role, 'user', 'Retry asks again for the same user message');
}

test('cut stream: partial kept, marked Incomplete, Retry produces a complete reply', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue({ chunks: ['Half ', 'a ', 'reply'], delayMs: 50, cut: true });
    await sendMessage(page, 'Hi');
    await expectIncompleteThenRetry(page, /Half a reply/);
  });
});

test('stalled stream: after the stall timeout the partial is kept, Incomplete, Retry works', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page, { stallSeconds: 2 });
    e2e.fake.enqueue({ chunks: ['Slow ', 'start'], delayMs: 50, stall: true });
    await sendMessage(page, 'Hi');
    await poll(async () => (await textOf(lastAssistant(page))).includes('Slow start'), { message: 'the first chunks' });
    const stalled = e2e.fake.chatRequests().at(-1);
    await expectIncompleteThenRetry(page, /Slow start/);
    const how = await Promise.race([stalled.closed, sleep(5_000).then(() => 'still open')]);
    assert.equal(how, 'aborted', 'the app aborted the stalled request');
  });
});

test('first run with nothing configured: the alert sends the user to Settings', async (t) => {
  // The app's default base URL is http://127.0.0.1:8080/v1; this test needs nothing there.
  const busy = await new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: 8080 });
    socket.setTimeout(2_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
  if (busy) {
    throw new Error(
      'port 8080 on 127.0.0.1 is busy: this test checks the first run against the default local ' +
        'server (http://127.0.0.1:8080/v1) when nothing is listening; stop whatever listens on 8080 and rerun',
    );
  }
  await e2e.open(t, async ({ page }) => {
    await sendMessage(page, 'Hello?');
    const text = await alertText(page, { timeout: 60_000 });
    assert.match(text, /Settings/, text);
    await waitIdle(page, { timeout: 60_000 });
  });
});
