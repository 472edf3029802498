// Against a real OpenAI-compatible server: llama.cpp (llama-cpp-python) serving SmolLM2-135M,
// both installed by scripts/setup.sh into ${SATORI_CACHE:-~/.cache/satori}/venv.
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
  recordAssistantTexts,
  partialTexts,
  everyMessage,
} from './support/browser.mjs';

const QUESTION = 'What is the capital of France?';

const e2e = useApp({ fake: false, llama: true });

test('a real llama.cpp server: the reply streams in, completes and is restored after reload', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await configure(page, { baseUrl: e2e.llama.baseUrl, model: 'smollm2', apiKey: '', maxTokens: 32 });
    const stopRecording = await recordAssistantTexts(page);
    await sendMessage(page, QUESTION, { timeout: 60_000 });
    await waitIdle(page, { timeout: 90_000 });
    const entries = await stopRecording();

    const reply = lastAssistant(page);
    assert.equal(await waitForStatus(reply, ['complete', 'incomplete', 'error', 'stopped']), 'complete');
    const answer = await textOf(reply);
    assert.ok(answer.length > 0, 'the model answered something');
    const partials = partialTexts(entries, answer);
    assert.ok(partials.length >= 1, `the text grew while streaming (saw ${JSON.stringify(entries.map((e) => e.text))})`);

    await reload(page);
    await poll(async () => (await articles(page, 'assistant').count()) === 1, { message: 'the restored reply' });
    assert.equal(await textOf(lastUser(page)), QUESTION);
    assert.equal(await textOf(lastAssistant(page)), answer);
    assert.equal(await lastAssistant(page).getAttribute('data-status'), 'complete');
  }).catch((err) => {
    err.message += `\n--- llama.cpp server output (tail):\n${e2e.llama.output().slice(-3_000)}`;
    throw err;
  });
});

test('a real llama.cpp server with a 2 048-token window: a chat far longer than that keeps getting answers, counted by the server', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await configure(page, { baseUrl: e2e.llama.baseUrl, model: 'smollm2', apiKey: '', maxTokens: 40 });
    const chats = [];
    let counted = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/chat/completions')) chats.push(r.postDataJSON());
      if (r.url().endsWith('/extras/tokenize/count')) counted += 1;
    });
    const topics = ['rivers', 'mountains', 'bread', 'trains', 'violins', 'comets', 'gardens', 'bridges', 'owls', 'glass', 'tea', 'maps'];
    for (const [i, topic] of topics.entries()) {
      const text = `Message ${i + 1} about ${topic}. ` + `Tell me one short fact about ${topic}, please, and keep it brief. `.repeat(12);
      await sendMessage(page, text, { timeout: 120_000 });
      await waitIdle(page, { timeout: 240_000 });
      const reply = lastAssistant(page);
      assert.equal(await waitForStatus(reply, ['complete', 'incomplete', 'stopped']), 'complete', `reply ${i + 1}`);
      assert.ok((await textOf(reply)).length > 0, `reply ${i + 1} has text`);
      assert.equal(await page.getByRole('alert').count(), 0, `no error after message ${i + 1}`);
    }
    // Count what was sent with the server's own tokenizer (content + 3 per message + 3).
    const tokens = async (text) => {
      const r = await fetch(`${e2e.llama.baseUrl.replace(/\/v1$/, '')}/extras/tokenize/count`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ input: text }),
      });
      return (await r.json()).count;
    };
    const requestTokens = async (body) => {
      let n = 3;
      for (const m of body.messages) n += (await tokens(m.content)) + 3;
      return n;
    };
    const asked = chats.filter((b) => !String(b.messages[0]?.content).startsWith('You summarize conversations'));
    assert.equal(asked.length, topics.length);
    // Budget: 2 048 − the reply reserve (max reply tokens, 40) − the exact-count margin (20).
    for (const [i, b] of asked.entries()) {
      const n = await requestTokens(b);
      assert.ok(n <= 2048 - 40 - 20, `request ${i + 1}: ${n} tokens`);
    }
    // The conversation itself went far past the window.
    const all = (await everyMessage(page)).messages.filter((m) => m.role === 'user').map((m) => m.text);
    let history = 0;
    for (const text of all) history += await tokens(text);
    assert.ok(history > 2048, `the user messages alone have ${history} tokens`);
    assert.ok(counted > 0, 'Satori asked the server to count tokens');
  }).catch((err) => {
    err.message += `\n--- llama.cpp server output (tail):\n${e2e.llama.output().slice(-3_000)}`;
    throw err;
  });
});
