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
