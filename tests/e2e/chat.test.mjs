// Chat round trips against the scripted fake server: send, stream, stop, regenerate, edit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
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
  recordAssistantTexts,
  partialTexts,
  stopButton,
  byName,
  sleep,
  chatEntry,
} from './support/browser.mjs';

const API_KEY = 'sk-e2e-chat-4b1d9e';

const e2e = useApp();

async function setup(page, extra = {}) {
  e2e.fake.reset();
  await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: API_KEY, ...extra });
}

test('Enter sends; the reply streams in and ends with the exact text; the request is well formed', async (t) => {
  await e2e.open(t, async ({ page, requests }) => {
    await setup(page);
    const pieces = ['Alpha ', 'bravo ', 'charlie ', 'delta ', 'echo ', 'foxtrot ', 'golf ', 'hotel.'];
    const expected = pieces.join('');
    e2e.fake.enqueue({ chunks: pieces, delayMs: 150 });

    const stopRecording = await recordAssistantTexts(page);
    await sendMessage(page, 'Hello there');
    await waitIdle(page);
    const entries = await stopRecording();

    assert.equal(await articles(page, 'user').count(), 1);
    assert.equal(await textOf(lastUser(page)), 'Hello there');
    assert.equal(await articles(page, 'assistant').count(), 1);
    const reply = lastAssistant(page);
    assert.equal(await waitForStatus(reply, 'complete'), 'complete');
    assert.equal(await textOf(reply), expected);
    assert.equal(await messageBox(page).inputValue(), '', 'the composer is cleared after sending');

    // Streaming: the text grew in steps that are prefixes of the final text.
    const partials = partialTexts(entries, expected);
    assert.ok(
      partials.length >= 2,
      `expected at least two different partial texts before completion, saw ${JSON.stringify(partials)}`,
    );
    const norm = (s) => s.replace(/\s+/g, ' ').trim();
    for (const p of partials) {
      assert.ok(norm(expected).startsWith(norm(p)), `partial ${JSON.stringify(p)} is not a prefix of the final text`);
    }
    assert.ok(
      entries.some((e) => e.status === 'streaming' && e.text.trim()),
      'the assistant article had data-status="streaming" while text was arriving',
    );

    // The request the server received.
    const chats = e2e.fake.chatRequests();
    assert.equal(chats.length, 1);
    const req = chats[0];
    assert.equal(req.body.stream, true, 'stream: true');
    assert.equal(req.body.model, 'fake-small');
    const last = req.body.messages.at(-1);
    assert.equal(last.role, 'user');
    assert.equal(typeof last.content === 'string' ? last.content : JSON.stringify(last.content), 'Hello there');
    assert.equal(req.headers.authorization, `Bearer ${API_KEY}`);
    assert.ok(!req.url.includes(API_KEY), 'API key must not be in the request URL');
    assert.ok(!requests.some((u) => u.includes(API_KEY)), 'API key must not be in any URL the page requested');
  });
});

test('Shift+Enter inserts a newline instead of sending', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const box = messageBox(page);
    await box.click();
    await page.keyboard.type('line one');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('line two');
    assert.equal(await box.inputValue(), 'line one\nline two');
    await sleep(300); // give a wrongly sent message a chance to show up
    assert.equal(await articles(page, 'user').count(), 0, 'Shift+Enter must not send');
    assert.equal(e2e.fake.chatRequests().length, 0, 'Shift+Enter must not send');

    await box.press('Enter');
    await poll(async () => (await articles(page, 'assistant').count()) === 1, { message: 'the reply' });
    await waitIdle(page);
    assert.equal(e2e.fake.chatRequests().at(-1).body.messages.at(-1).content, 'line one\nline two');
    assert.equal(await textOf(lastAssistant(page)), 'Echo: line one\nline two');
  });
});

test('an Enter that picks an input method\'s word does not send: while composing, and in Safari\'s order (composition ended, key code 229)', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const box = messageBox(page);
    await box.fill('你好');
    for (const init of [{ isComposing: true }, { keyCode: 229 }]) {
      const sent = await box.evaluate((el, init) => !el.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true, ...init })), init);
      assert.equal(sent, false, `the Enter of ${JSON.stringify(init)} left alone (not prevented)`);
    }
    await sleep(300); // give a wrongly sent message a chance to show up
    assert.equal(await articles(page, 'user').count(), 0, 'the word-picking Enter must not send');
    assert.equal(e2e.fake.chatRequests().length, 0);
    assert.equal(await box.inputValue(), '你好');

    await box.press('Enter');
    await poll(async () => (await articles(page, 'assistant').count()) === 1, { message: 'the reply' });
    await waitIdle(page);
    assert.equal(e2e.fake.chatRequests().at(-1).body.messages.at(-1).content, '你好');
  });
});

test('reasoning is shown in a collapsed "Reasoning" details, the answer outside it', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue({ reasoning: ['Let me ', 'think it ', 'over.'], chunks: ['The answer ', 'is 42.'], delayMs: 20 });
    await sendMessage(page, 'Meaning of life?');
    await waitIdle(page);
    const reply = lastAssistant(page);
    await waitForStatus(reply, 'complete');

    const details = reply.locator('details.reasoning');
    assert.equal(await details.count(), 1, 'one details.reasoning in the assistant message');
    assert.equal(await details.evaluate((d) => d.open), false, 'reasoning is collapsed');
    const summary = (await details.locator('summary').innerText()).trim();
    assert.match(summary, /^Reasoning\b/, `summary is "Reasoning" (got ${JSON.stringify(summary)})`);
    const reasoningText = await details.evaluate((d) => d.textContent);
    assert.match(reasoningText, /Let me think it over\./);
    assert.doesNotMatch(reasoningText, /The answer/, 'the answer is not inside the reasoning');
    assert.equal(await textOf(reply), 'The answer is 42.');
  });
});

test('a reply is drawn as it arrives: finished blocks as markdown, drawn once, the growing one after them; the whole is rendered at the end', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue({
      chunks: ['## Plan\n\n', '**First** step', '.\n\n', '```js\n', 'let a = 1;\n\n', 'let b = 2;\n```\n\n', 'Still ', 'typing'],
      reasoning: ['Thinking ', 'about it.'],
      delayMs: 150,
      stall: true,
    });
    await sendMessage(page, 'Plan it');
    const reply = lastAssistant(page);
    const drawn = reply.locator('.content');
    // Once the code block has begun, the heading and the paragraph before it are finished: mark
    // them; they must still be those nodes at the end, however often the growing block was drawn.
    await poll(async () => (await textOf(reply)).includes('let a'), { message: 'the code block begun' });
    await drawn.locator('h2').evaluate((h) => h.setAttribute('data-seen', ''));
    await drawn.locator('strong').evaluate((h) => h.setAttribute('data-seen', ''));
    await poll(async () => (await textOf(reply)).endsWith('Still typing'), { message: 'the last piece drawn' });
    assert.equal(await reply.getAttribute('data-status'), 'streaming');
    // The finished blocks are markdown already, the code block whole across its blank line, and
    // each was drawn once: the nodes drawn first are the same nodes now.
    assert.equal(await drawn.locator('h2[data-seen]').innerText(), 'Plan', 'the heading was drawn once');
    assert.equal(await drawn.locator('strong[data-seen]').innerText(), 'First', 'the paragraph was drawn once');
    assert.equal(await drawn.locator('pre code').count(), 1);
    assert.equal((await drawn.locator('pre code').innerText()).trimEnd(), 'let a = 1;\n\nlet b = 2;');
    assert.equal(await reply.locator('.reasoning-text').evaluate((d) => d.textContent), 'Thinking about it.');
    assert.match(await textOf(reply), /^Plan\n+First step\.\n[\s\S]*Still typing$/);
    e2e.fake.reset();
    await stopButton(page).click();
    await waitIdle(page);
    // Stopped: drawn again whole, with the same text.
    await waitForStatus(reply, 'stopped');
    assert.equal(await drawn.locator('h2').innerText(), 'Plan');
    assert.equal((await drawn.locator('pre code').innerText()).trimEnd(), 'let a = 1;\n\nlet b = 2;');
    assert.match(await textOf(reply), /Still typing$/);
  });
});

async function stopTest(t, stopAction) {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const pieces = Array.from({ length: 20 }, (_, i) => `w${String(i + 1).padStart(2, '0')} `);
    e2e.fake.enqueue({ chunks: pieces, delayMs: 300 });
    await sendMessage(page, 'Count slowly');
    const reply = lastAssistant(page);
    await poll(async () => (await textOf(reply)).length > 0, { message: 'the first streamed text' });
    await stopButton(page).waitFor({ state: 'visible' });

    await stopAction(page);

    assert.equal(await waitForStatus(reply, 'stopped'), 'stopped');
    await reply.getByText('Stopped', { exact: true }).waitFor({ state: 'visible' });
    await waitIdle(page);
    const kept = await textOf(reply);
    assert.match(kept, /^w01\b/, `the partial reply is kept (got ${JSON.stringify(kept)})`);
    assert.doesNotMatch(kept, /w20/, 'the reply was stopped before the end');

    // The fetch was really aborted: the server saw the connection close before the stream ended.
    const req = e2e.fake.chatRequests().at(-1);
    const how = await Promise.race([req.closed, sleep(5_000).then(() => 'still open after 5 s')]);
    assert.equal(how, 'aborted', 'the fake server saw the client abort the stream');

    await sleep(2_000);
    assert.equal(await textOf(reply), kept, 'no more text arrives after Stop');
    assert.equal(await reply.getAttribute('data-status'), 'stopped');
  });
}

test('Stop ends the stream, keeps the partial reply and marks it stopped', async (t) => {
  await stopTest(t, async (page) => {
    await stopButton(page).click();
  });
});

test('Esc also stops the stream, but not the Esc that cancels an input method\'s word', async (t) => {
  await stopTest(t, async (page) => {
    // While composing, and in Safari's order (composition ended, key code 229): left alone.
    for (const init of [{ isComposing: true }, { keyCode: 229 }]) {
      await messageBox(page).evaluate((el, init) => el.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true, ...init })), init);
    }
    await sleep(700);
    assert.equal(await lastAssistant(page).getAttribute('data-status'), 'streaming', 'the reply still streams');
    await page.keyboard.press('Escape');
  });
});

test('Regenerate streams a new variant; the variant switcher moves between them', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await sendMessage(page, 'Tell me a story');
    await waitIdle(page);
    const reply = lastAssistant(page);
    await waitForStatus(reply, 'complete');
    assert.equal(await textOf(reply), 'Echo: Tell me a story');

    e2e.fake.enqueue({ chunks: ['Second ', 'version ', 'of it.'], delayMs: 50 });
    await reply.getByRole('button', byName('Regenerate')).click();
    await poll(async () => (await textOf(lastAssistant(page))) === 'Second version of it.', {
      timeout: 15_000,
      message: 'the regenerated reply',
    });
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    assert.equal(await articles(page, 'assistant').count(), 1, 'variants replace each other in place');

    // The regenerate request does not contain the reply being replaced.
    const regen = e2e.fake.chatRequests().at(-1);
    assert.equal(e2e.fake.chatRequests().length, 2);
    assert.equal(regen.body.messages.at(-1).role, 'user');
    assert.equal(regen.body.messages.at(-1).content, 'Tell me a story');
    assert.ok(
      !regen.body.messages.some((m) => m.role === 'assistant' && String(m.content).includes('Echo: Tell me a story')),
      'the replaced reply is not sent back to the model',
    );

    const current = lastAssistant(page);
    await current.getByText('2 / 2', { exact: true }).waitFor({ state: 'visible' });
    await current.getByRole('button', byName('Previous variant')).click();
    await poll(async () => (await textOf(lastAssistant(page))) === 'Echo: Tell me a story', {
      message: 'the first variant after "Previous variant"',
    });
    await lastAssistant(page).getByText('1 / 2', { exact: true }).waitFor({ state: 'visible' });
    await lastAssistant(page).getByRole('button', byName('Next variant')).click();
    await poll(async () => (await textOf(lastAssistant(page))) === 'Second version of it.', {
      message: 'the second variant after "Next variant"',
    });
    await lastAssistant(page).getByText('2 / 2', { exact: true }).waitFor({ state: 'visible' });
  });
});

test('Edit and "Save and send" branches the conversation; the old branch stays reachable', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await sendMessage(page, 'First question');
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    assert.equal(await textOf(lastAssistant(page)), 'Echo: First question');

    await lastUser(page).getByRole('button', byName('Edit')).click();
    const editBox = page.getByRole('textbox', byName('Edit message'));
    await editBox.waitFor({ state: 'visible' });
    assert.equal(await editBox.inputValue(), 'First question', 'the editor starts with the old text');
    await editBox.fill('Second question');
    await page.getByRole('button', byName('Save and send')).click();

    await poll(async () => (await textOf(lastAssistant(page))) === 'Echo: Second question', {
      timeout: 15_000,
      message: 'the reply to the edited message',
    });
    await waitIdle(page);
    assert.equal(await articles(page, 'user').count(), 1, 'the edit replaces the message in place');
    assert.equal(await articles(page, 'assistant').count(), 1);
    assert.equal(await textOf(lastUser(page)), 'Second question');
    const sent = e2e.fake.chatRequests().at(-1).body.messages;
    assert.equal(sent.at(-1).content, 'Second question');
    assert.ok(!sent.some((m) => String(m.content).includes('First question')), 'the old branch is not sent');

    const user = lastUser(page);
    await user.getByText('2 / 2', { exact: true }).waitFor({ state: 'visible' });
    await user.getByRole('button', byName('Previous variant')).click();
    await poll(async () => (await textOf(lastUser(page))) === 'First question', {
      message: 'the old user message after "Previous variant"',
    });
    await poll(async () => (await textOf(lastAssistant(page))) === 'Echo: First question', {
      message: 'the old branch reply to come back with the old user message',
    });
    await lastUser(page).getByRole('button', byName('Next variant')).click();
    await poll(async () => (await textOf(lastAssistant(page))) === 'Echo: Second question', {
      message: 'the new branch after "Next variant"',
    });
  });
});

test('closing the page mid-reply keeps the partial text, restored as Incomplete', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const pieces = Array.from({ length: 40 }, (_, i) => `p${String(i + 1).padStart(2, '0')} `);
    e2e.fake.enqueue({ chunks: pieces, delayMs: 100 });
    await sendMessage(page, 'Write slowly');
    const reply = lastAssistant(page);
    // Wait past the first checkpoint (about once a second) with text on screen.
    await poll(async () => (await textOf(reply)).includes('p15'), { message: 'fifteen pieces streamed' });
    await page.reload({ waitUntil: 'load' });
    const restored = lastAssistant(page);
    assert.equal(await waitForStatus(restored, 'incomplete'), 'incomplete');
    await restored.getByText('Incomplete', { exact: true }).waitFor({ state: 'visible' });
    const kept = await textOf(restored);
    assert.match(kept, /^p01 p02 p03 p04 p05/, `the checkpointed partial reply is kept (got ${JSON.stringify(kept)})`);
    assert.doesNotMatch(kept, /p40/, 'the reply was cut by the reload');
    // The reply can be retried from there.
    e2e.fake.enqueue({ chunks: ['Done ', 'now.'] });
    await restored.getByRole('button', byName('Retry')).click();
    await waitIdle(page);
    assert.equal(await textOf(lastAssistant(page)), 'Done now.');
  });
});

test('switching to a new chat mid-reply stops it and keeps the partial in the old chat', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const pieces = Array.from({ length: 40 }, (_, i) => `s${String(i + 1).padStart(2, '0')} `);
    e2e.fake.enqueue({ chunks: pieces, delayMs: 100 });
    await sendMessage(page, 'Switch away from me');
    // Past the first checkpoint (about once a second), so the stored record already holds text.
    await poll(async () => (await textOf(lastAssistant(page))).includes('s15'), { message: 'fifteen pieces streamed' });
    await page.getByRole('button', byName('New chat')).click();
    await poll(async () => (await articles(page, 'user').count()) === 0, { message: 'the new chat is open' });
    await waitIdle(page);
    await chatEntry(page, 'Switch away from me').click();
    const reply = lastAssistant(page);
    assert.equal(await waitForStatus(reply, 'stopped'), 'stopped');
    const kept = await textOf(reply);
    assert.match(kept, /^s01 s02 s03 s04 s05 s06 s07 s08 s09 s10 s11 s12 s13 s14 s15/, `the partial reply is kept (got ${JSON.stringify(kept)})`);
    assert.doesNotMatch(kept, /s40/);
    assert.equal(kept.match(/s01/g).length, 1, `no text is saved twice (got ${JSON.stringify(kept)})`);
  });
});
