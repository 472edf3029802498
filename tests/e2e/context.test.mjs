// The context pipeline against the scripted fake server: what the server receives stays within
// the budget, old turns are summarized once (not per send) with their key facts restored, a
// failing summarizer still lets the message go out trimmed, tool-call groups stay whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './support/app.mjs';
import { fakeTokens } from './support/fake-llm.mjs';
import { getEncoding } from 'js-tiktoken';
import {
  configure,
  waitIdle,
  sendMessage,
  lastAssistant,
  articles,
  waitForStatus,
  reload,
  poll,
  storedChat as openChat,
  writeChat,
} from './support/browser.mjs';

// Some tests make the app's own files fail: no service worker may answer for them.
const e2e = useApp({ serviceWorkers: 'block' });

// The summarizer template's system prompt starts with this (prompts/fragments.yaml).
const SUMMARIZER = 'You summarize conversations';
const isSummaryCall = (body) => String(body?.messages?.[0]?.content ?? '').startsWith(SUMMARIZER);
const WINDOW = 700;
const RESERVE = 100;
// Exact counts (the fake server tokenizes): margin = max(16, 1 % of the window).
const BUDGET = WINDOW - RESERVE - 16;

/** The request's size as the fake tokenizer counts it, with OpenAI's per-message overhead. */
function requestTokens(body) {
  let total = 3;
  for (const m of body.messages) {
    total += fakeTokens(m.content) + 3;
    for (const c of m.tool_calls ?? []) {
      total += fakeTokens(JSON.stringify({ id: c.id, type: 'function', function: c.function }));
    }
    if (m.tool_call_id) total += fakeTokens(m.tool_call_id) + 1;
  }
  return total;
}

const filler = (n, seed) =>
  Array.from({ length: n }, (_, i) => ['river', 'stone', 'maple', 'cloud', 'lantern', 'copper'][(i + seed) % 6]).join(' ');

const FACTS_MESSAGE =
  'My order number is ORD-2024-00042, I paid $1,299.00 on 2024-03-15 and you can reach me at li.wei@example.com.';
const FACTS = ['ORD-2024-00042', '$1,299.00', '2024-03-15', 'li.wei@example.com'];

function chatCalls() {
  return e2e.fake.chatRequests().filter((r) => !isSummaryCall(r.body));
}
function summaryCalls() {
  return e2e.fake.chatRequests().filter((r) => isSummaryCall(r.body));
}

async function setup(page, { summarizer, ...extra } = {}) {
  e2e.fake.reset();
  e2e.fake.setTokenizer(true);
  e2e.fake.setDefault((body) =>
    isSummaryCall(body)
      ? summarizer ?? { chunks: ['The user asked about an order and several topics; the assistant answered each at length.'] }
      : { chunks: [`Here is a long answer. ${filler(60, body.messages.length)}`] },
  );
  await configure(page, {
    baseUrl: e2e.fake.baseUrl,
    model: 'fake-small',
    contextWindow: WINDOW,
    replyReserve: RESERVE,
    keepRecentRounds: 4,
    minimumRounds: 1,
    ...extra,
  });
}

/** The open chat's stored record (its data). */
async function storedChat(page) {
  return openChat(page);
}

async function chat(page, n) {
  for (let i = 0; i < n; i++) {
    const text = i === 0 ? FACTS_MESSAGE : `Question ${i}: ${filler(40, i)}`;
    await sendMessage(page, text);
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
  }
}

test('a long chat: every request fits the budget, old turns are summarized once per boundary move, early facts survive', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await chat(page, 12);
    const calls = chatCalls();
    assert.equal(calls.length, 12, 'one chat request per message');
    for (const [i, r] of calls.entries()) {
      const n = requestTokens(r.body);
      assert.ok(n <= BUDGET, `request ${i + 1} has ${n} tokens, over the budget of ${BUDGET}`);
    }
    // The whole history is far larger than the window: something had to give.
    assert.ok(calls.at(-1).body.messages.length < 24, 'the last request does not carry every message');
    const summaries = summaryCalls();
    assert.ok(summaries.length >= 1, 'a summary was made');
    // One summary may take several calls (pieces that fit the summarizer's window): count runs.
    const order = e2e.fake.chatRequests().map((r) => (isSummaryCall(r.body) ? 'S' : 'C')).join('');
    const made = order.match(/S+/g)?.length ?? 0;
    assert.ok(made <= 6, `summaries are not made per send (${made} for 12 sends: ${order})`);
    // A summary is never followed by another one on the very next send.
    assert.ok(!/SCS/.test(order), `summaries on consecutive sends: ${order}`);
    // Every summary call fits the chat's window.
    for (const s of summaries) assert.ok(requestTokens(s.body) + s.body.max_tokens <= WINDOW, `summary call of ${requestTokens(s.body)} tokens`);
    // Extensions carry the previous summary.
    for (const s of summaries.slice(1)) {
      assert.match(s.body.messages.at(-1).content, /Summary so far:/);
    }
    // The last request: the system prompt, then the summary with every early fact (the scripted
    // summarizer left them all out, the fact guard put them back), then recent turns.
    const last = calls.at(-1).body.messages;
    assert.equal(last[0].role, 'system');
    assert.equal(last[1].role, 'system');
    assert.match(last[1].content, /^Summary of the earlier conversation:/);
    for (const f of FACTS) assert.ok(last[1].content.includes(f), `fact ${f} missing from ${last[1].content}`);
    assert.match(last[1].content, /Key facts:/);
    assert.equal(last.at(-1).role, 'user');
    assert.match(last.at(-1).content, /^Question 11:/);
    // The stored history is complete: nothing was deleted.
    const stored = await storedChat(page);
    assert.equal(stored.messages.filter((m) => m.role === 'user').length, 12);
    assert.ok(stored.summaries.length >= 1);
    assert.deepEqual(stored.summaries.at(-1).restored.filter((f) => FACTS.includes(f)).sort(), [...FACTS].sort());
  });
});

test('a failing summarizer: the message still goes out, trimmed to the budget, and the status line says why', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page, { summarizer: { status: 500, body: { error: { message: 'summarizer down' } } } });
    await chat(page, 7);
    assert.ok(summaryCalls().length >= 1, 'a summary was attempted');
    // After a failure the summarizer is left alone for a while: one attempt, not one per send.
    const order = e2e.fake.chatRequests().map((r) => (isSummaryCall(r.body) ? 'S' : 'C')).join('');
    assert.equal(order.match(/S+/g)?.length, 1, `one summary attempt in ${order}`);
    const calls = chatCalls();
    assert.equal(calls.length, 7);
    for (const r of calls) assert.ok(requestTokens(r.body) <= BUDGET);
    assert.ok(!calls.at(-1).body.messages.some((m) => /^Summary of/.test(m.content)), 'no summary was invented');
    assert.ok(!calls.at(-1).body.messages.some((m) => m.content === FACTS_MESSAGE), 'the oldest turn was trimmed');
    const status = page.locator('p.status-line[role="status"]');
    await poll(async () => /left out of this request instead of summarized: the summarizer failed a moment ago \(server error \(500\)\)/.test(await status.innerText()), { message: 'the notice' });
    assert.match(await status.innerText(), /history itself is unchanged/);
  });
});

test('tool-call groups: older results become placeholders, the latest round is sent whole, every call keeps its answer', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page, { summarize: false });
    await chat(page, 2);
    // Put two tool rounds into the stored chat (as agent mode would), then reload.
    const oldResult = `weather report ${filler(30, 1)}`;
    const newResult = `stock level ${filler(12, 2)}`;
    {
      const s = await openChat(page);
      const users = s.messages.filter((m) => m.role === 'user');
      const replies = s.messages.filter((m) => m.role === 'assistant');
      const msg = (id, parent, role, content, extra = {}) => ({ id, parent, role, content, status: 'complete', created_at: 1, ...extra });
      const call = (id, name) => ({ index: 0, id, name, arguments: '{}' });
      const added = [
        msg('acA', replies[0].id, 'assistant', '', { tool_calls: [call('cA1', 'weather'), call('cA2', 'weather')] }),
        msg('tA1', 'acA', 'tool', oldResult, { tool_call_id: 'cA1' }),
        msg('tA2', 'tA1', 'tool', 'sunny', { tool_call_id: 'cA2' }),
        msg('acB', replies[1].id, 'assistant', '', { tool_calls: [call('cB1', 'stock')] }),
        msg('tB1', 'acB', 'tool', newResult, { tool_call_id: 'cB1' }),
      ];
      users[1].parent = 'tA2';
      s.messages.push(...added);
      s.leaf = 'tB1';
      await writeChat(page, s);
    }
    await reload(page);
    await sendMessage(page, 'And now?');
    await waitIdle(page);
    const sent = chatCalls().at(-1).body.messages;
    const roles = sent.map((m) => m.role).join(',');
    assert.equal(roles, 'system,user,assistant,assistant,tool,tool,user,assistant,assistant,tool,user');
    assert.deepEqual(sent[3].tool_calls.map((c) => c.id), ['cA1', 'cA2']);
    assert.equal(sent[4].tool_call_id, 'cA1');
    assert.equal(sent[4].content, `[tool result omitted: ${fakeTokens(oldResult)} tokens]`);
    assert.equal(sent[5].content, `[tool result omitted: ${fakeTokens('sunny')} tokens]`);
    assert.equal(sent[9].tool_call_id, 'cB1');
    assert.equal(sent[9].content, newResult, 'the latest tool round is sent whole');
    assert.ok(requestTokens(chatCalls().at(-1).body) <= BUDGET);
  });
});

test('one giant message is cut head-and-tail with a marker to fit; nothing over budget is sent', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page, { summarize: false });
    const giant = `BEGIN ${filler(2000, 3)} END`;
    await sendMessage(page, giant);
    await waitIdle(page);
    const body = chatCalls().at(-1).body;
    const user = body.messages.at(-1);
    assert.ok(user.content.startsWith('BEGIN river') || user.content.startsWith('BEGIN '), user.content.slice(0, 40));
    assert.ok(user.content.endsWith(' END'));
    assert.match(user.content, /characters cut to fit the context/);
    assert.ok(requestTokens(body) <= BUDGET, `${requestTokens(body)} > ${BUDGET}`);
    // The stored message is whole.
    const stored = (await storedChat(page)).messages.find((m) => m.role === 'user').content;
    assert.equal(stored, giant);
  });
});

test('the Context inspector shows the next request: tokens against the budget, fates, the summary (editable), the body and a curl without the key', async (t) => {
  await e2e.open(
    t,
    async ({ page }) => {
      await setup(page, { apiKey: 'sk-inspector-secret-77' });
      await chat(page, 7);
      await page.getByRole('textbox', { name: 'Message', exact: true }).fill('A draft about ORD-2024-00042');
      const toggle = page.getByRole('button', { name: 'Context', exact: true });
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      await toggle.click();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      const region = page.getByRole('region', { name: 'Context inspector', exact: true });
      await region.waitFor();
      const total = region.locator('.ctx-total strong');
      await total.waitFor({ timeout: 15_000 });
      const [, used, budget] = (await total.innerText()).match(/^(\d+) \/ (\d+) tokens$/) ?? [];
      assert.equal(Number(budget), BUDGET, await total.innerText());
      assert.ok(Number(used) > 0 && Number(used) <= BUDGET);
      // The next request ends with the draft.
      const body = await region.locator('.ctx-body pre').textContent();
      const parsed = JSON.parse(body);
      assert.equal(parsed.messages.at(-1).content, 'A draft about ORD-2024-00042');
      assert.equal(requestTokens(parsed), Number(used), 'the inspector counts what the fake server counts');
      // Every message has a row with its fate; older ones were summarized.
      const fates = await region.locator('.ctx-table tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.fate));
      assert.ok(fates.includes('summarized'), fates.join(','));
      assert.ok(fates.includes('kept'));
      // The window bar has an accessible description.
      assert.match(await region.getByRole('img').getAttribute('aria-label'), /^Context window: System prompt \d+/);
      // The summary, with the restored facts, can be edited; the next request uses the edit.
      const text = region.getByRole('textbox', { name: 'Summary text', exact: true });
      assert.match(await text.inputValue(), /ORD-2024-00042/);
      await text.fill('Edited summary: order ORD-2024-00042, paid $1,299.00.');
      await region.getByRole('button', { name: 'Save summary', exact: true }).click();
      await poll(async () => (await storedChat(page)).summaries.some((s) => s.edited), { message: 'the edited summary stored' });
      // The inspector's next request uses the edit at once.
      await poll(async () => /Edited summary: order ORD-2024-00042/.test(await region.locator('.ctx-body pre').textContent()), {
        message: 'the edited summary in the next request',
      });
      await page.getByRole('textbox', { name: 'Message', exact: true }).fill('');
      const before = e2e.fake.chatRequests().length;
      await sendMessage(page, 'After the edit');
      await waitIdle(page);
      // Sent as it is, or extended by the next summary (which then starts from the edit).
      const after = e2e.fake.chatRequests().slice(before);
      assert.ok(
        after.some((r) => r.body.messages.some((m) => m.content.includes('Edited summary: order ORD-2024-00042'))),
        'the edited summary reaches the server',
      );
      // Copy as curl: the command never carries the key.
      await poll(async () => (await region.getByRole('combobox').locator('option').count()) >= 2, { message: 'the sent request listed' });
      await region.getByRole('button', { name: 'Copy as curl', exact: true }).click();
      await poll(async () => /Copied/.test(await region.getByRole('status').innerText()), { message: 'copied' });
      const curl = await page.evaluate(() => navigator.clipboard.readText());
      assert.match(curl, /^curl -N 'http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions'/);
      assert.match(curl, /Bearer \$SATORI_API_KEY/);
      assert.ok(!curl.includes('sk-inspector-secret-77'), 'the key is not in the command');
      assert.ok(!(await region.innerText()).includes('sk-inspector-secret-77'), 'the key is not in the inspector');
      await toggle.click();
      await region.waitFor({ state: 'detached' });
    },
    { contextOptions: { permissions: ['clipboard-read', 'clipboard-write'] } },
  );
});

test("a chat's own context settings (in the inspector) override Settings for that chat only", async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page, { summarize: false });
    await chat(page, 3);
    await page.getByRole('button', { name: 'Context', exact: true }).click();
    const region = page.getByRole('region', { name: 'Context inspector', exact: true });
    await region.locator('.ctx-total').waitFor();
    await region.getByText("This chat's context settings").click();
    await region.getByLabel('Chat context window', { exact: true }).fill('400');
    await region.getByRole('button', { name: 'Save for this chat', exact: true }).click();
    // Window 400 − reply reserve 100 (Settings) − margin 16.
    const budget = 400 - 100 - 16;
    await poll(async () => (await region.locator('.ctx-total strong').innerText()).endsWith(`/ ${budget} tokens`), {
      message: 'the chat budget in the inspector',
    });
    assert.equal((await storedChat(page)).context.window, 400);
    await sendMessage(page, `Question 9: ${filler(40, 9)}`);
    await waitIdle(page);
    const body = chatCalls().at(-1).body;
    assert.ok(requestTokens(body) <= budget, `${requestTokens(body)} > ${budget}`);
    assert.ok(body.messages.length < 8, 'older rounds were left out to fit the chat window');
    // A new chat follows Settings again.
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await poll(async () => (await region.locator('.ctx-total strong').innerText()).endsWith(`/ ${BUDGET} tokens`), {
      message: 'the Settings budget in a new chat',
    });
  });
});

test('when the turns module cannot be loaded, nothing is sent, an alert says why and the message is kept', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await page.route(/\/turns-[0-9a-f]+\//, (route) => route.abort());
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    await sendMessage(page, 'Is anyone there?');
    await waitIdle(page);
    const alert = page.getByRole('alert').filter({ hasText: /turns module/ });
    await alert.waitFor();
    assert.match(await alert.innerText(), /Not sent: .*turns module.* could not be loaded/);
    assert.equal(e2e.fake.chatRequests().length, 0, 'no request reached the server');
    const stored = await storedChat(page);
    assert.ok(JSON.stringify(stored).includes('Is anyone there?'), 'the message is kept in the chat');
    // Once the module can load, the same chat sends.
    await page.unroute(/\/turns-[0-9a-f]+\//);
    await sendMessage(page, 'Now?');
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    assert.equal(e2e.fake.chatRequests().length, 1);
  });
});

// OpenAI models are counted with OpenAI's own tables (loaded by the turns module after the
// first load): the inspector's total equals js-tiktoken's count of the request it shows.
for (const [model, encoding] of [['gpt-4o', 'o200k_base'], ['gpt-4-turbo', 'cl100k_base']]) {
  test(`${model}: counts are exact (${encoding}, equal to js-tiktoken), never estimated`, async (t) => {
    await e2e.open(t, async ({ page }) => {
      e2e.fake.reset();
      const tables = [];
      page.on('request', (r) => { if (/\/tokens\//.test(r.url())) tables.push(r.url()); });
      e2e.fake.setDefault(() => ({ chunks: ['Sure — 好的！ Here is `code()` and 🚀 emoji.'] }));
      await configure(page, { baseUrl: e2e.fake.baseUrl, model });
      await sendMessage(page, 'Count me: naïve café, 中文分词测试，emoji 👩‍💻🎉 and code `fn main() { println!("hi"); }`');
      await waitIdle(page);
      await waitForStatus(lastAssistant(page), 'complete');
      await page.getByRole('textbox', { name: 'Message', exact: true }).fill('第二条消息：订单号 ORD-7731，金额 ¥1,280.50。\n\tindented    spaces\r\n');
      await page.getByRole('button', { name: 'Context', exact: true }).click();
      const region = page.getByRole('region', { name: 'Context inspector', exact: true });
      const total = region.locator('.ctx-total strong');
      await total.waitFor({ timeout: 15_000 });
      const shown = await total.innerText();
      const [, used] = shown.match(/^(\d+) \/ (\d+) tokens$/) ?? [];
      assert.ok(used, `an exact total (no ≈): ${shown}`);
      const body = JSON.parse(await region.locator('.ctx-body pre').textContent());
      const enc = getEncoding(encoding);
      const expected = body.messages.reduce((n, m) => n + enc.encode(m.content).length + 3, 3);
      assert.equal(Number(used), expected, `the inspector's total against js-tiktoken (${encoding})`);
      assert.equal(tables.length, 1, `one table fetched: ${tables.join(', ')}`);
      assert.match(tables[0], new RegExp(`/tokens/${encoding}-[0-9a-f]{16}\\.bin$`));
    });
  });
}

test('pins that alone exceed the budget: nothing is sent, the user is asked, "Unpin all and send" sends trimmed', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    for (let i = 0; i < 3; i++) {
      await sendMessage(page, `Pinned ${i}: ${filler(220, i)}`);
      await waitIdle(page);
      await waitForStatus(lastAssistant(page), 'complete');
    }
    for (let i = 0; i < 3; i++) {
      const pin = articles(page, 'user').nth(i).getByRole('button', { name: 'Pin', exact: true });
      await pin.click();
      assert.equal(await pin.getAttribute('aria-pressed'), 'true');
    }
    const before = e2e.fake.chatRequests().length;
    await sendMessage(page, 'And now?');
    const alert = page.getByRole('alert').filter({ hasText: /pinned messages need/ });
    await alert.waitFor();
    assert.match(await alert.innerText(), /Not sent: the pinned messages need \d+ tokens, more than the \d+ that fit/);
    assert.equal(e2e.fake.chatRequests().length, before, 'nothing was sent');
    // Nothing was dropped: the pins are still pinned.
    assert.equal(JSON.stringify(await storedChat(page)).match(/"pinned":true/g)?.length, 3);
    assert.equal(await alert.getByRole('button', { name: 'Retry', exact: true }).count(), 0, 'Retry would meet the same pins');
    await alert.getByRole('button', { name: 'Unpin all and send', exact: true }).click();
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    const sent = e2e.fake.chatRequests().slice(before);
    assert.equal(sent.length, 1, 'one request after the choice');
    assert.ok(requestTokens(sent[0].body) <= BUDGET, 'within the budget');
    assert.equal(sent[0].body.messages.at(-1).content, 'And now?');
    const stored = JSON.stringify(await storedChat(page));
    assert.ok(!stored.includes('"pinned":true'), 'no message is pinned any more');
    for (let i = 0; i < 3; i++) assert.ok(stored.includes(`Pinned ${i}:`), `message ${i} is kept in the chat`);
  });
});

// Ollama states the window a model runs with (its num_ctx, or less if a loaded model runs with
// less); it cuts longer prompts silently, so Satori must budget for it, per model. The fake
// answers as Ollama does.
const LLAMA_SHOW = { model_info: { 'llama.context_length': 131072 } };
for (const [what, answers, window] of [
  ['the model\'s num_ctx', { show: { 'llama3.2': { parameters: 'stop "<|im_end|>"\nnum_ctx 1536', ...LLAMA_SHOW } } }, 1536],
  ['the loaded model\'s smaller window', { show: { 'llama3.2': LLAMA_SHOW }, ps: { models: [{ name: 'llama3.2:latest', context_length: 3072 }] } }, 3072],
  ['the trained length, capped at Ollama\'s default', { show: { 'llama3.2': LLAMA_SHOW } }, 4096],
]) {
  test(`Ollama: the window is ${what} (${window})`, async (t) => {
    await e2e.open(t, async ({ page }) => {
      e2e.fake.reset();
      e2e.fake.setOllama(answers);
      await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'llama3.2', apiKey: 'sk-ollama-key-1' });
      assert.match(await inspectedWindow(page, 'How big is your window?'), new RegExp(`— window ${window}, ≈ estimated`));
      const show = e2e.fake.requests.find((r) => r.method === 'POST' && r.path === '/api/show');
      assert.equal(show?.body?.model, 'llama3.2', 'asked about the model in use');
      // The chat request carries the key; the questions about the server never do.
      await page.getByRole('textbox', { name: 'Message', exact: true }).fill('');
      await sendMessage(page, 'Hello');
      await waitIdle(page);
      assert.equal(e2e.fake.chatRequests().at(-1).headers.authorization, 'Bearer sk-ollama-key-1');
      for (const r of e2e.fake.requests.filter((r) => r.path.startsWith('/api/'))) {
        assert.equal(r.headers.authorization, undefined, `${r.method} ${r.path} carries no key`);
      }
    });
  });
}

/** The inspector's total line for a draft `text` (the inspector is opened, then closed). */
async function inspectedWindow(page, text, { server = true } = {}) {
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  const toggle = page.getByRole('button', { name: 'Context', exact: true });
  await toggle.click();
  const region = page.getByRole('region', { name: 'Context inspector', exact: true });
  const total = region.locator('.ctx-total');
  await total.locator('strong').waitFor({ timeout: 15_000 });
  const line = await total.innerText();
  assert.equal(/Window reported by the server\./.test(await region.innerText()), server, line);
  await toggle.click();
  await region.waitFor({ state: 'detached' });
  return line;
}

test('Ollama: windows are per model; a model Ollama does not know yet is asked about again', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    const answers = { show: { big: { parameters: 'num_ctx 32768', ...LLAMA_SHOW } } };
    e2e.fake.setOllama(answers);
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'big' });
    assert.match(await inspectedWindow(page, 'one'), /— window 32768,/);
    // Another model on the same server: its own window, not the first one's.
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'small' });
    answers.show.small = { parameters: 'num_ctx 2048', ...LLAMA_SHOW };
    assert.match(await inspectedWindow(page, 'two'), /— window 2048,/);
    // A model not pulled yet: not known (no window from the server) … until it is.
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'later' });
    const line = await inspectedWindow(page, 'three', { server: false });
    assert.doesNotMatch(line, /— window (32768|2048),/);
    answers.show.later = { parameters: 'num_ctx 3000', ...LLAMA_SHOW };
    assert.match(await inspectedWindow(page, 'four'), /— window 3000,/);
  });
});

// Without a tokenizer, counts are estimates ("≈") that each reply's usage.prompt_tokens corrects
// for the model: a server counting far more than estimated makes the next estimates larger.
test('estimates learn from usage.prompt_tokens: a server that counts more makes later estimates larger', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'mystery-model' });
    const draft = filler(400, 5);
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    const region = page.getByRole('region', { name: 'Context inspector', exact: true });
    const estimate = async () => {
      const total = region.locator('.ctx-total strong');
      await total.waitFor({ timeout: 15_000 });
      const [, n] = (await total.innerText()).match(/^≈(\d+) \/ \d+ tokens$/) ?? [];
      assert.ok(n, `an estimate: ${await total.innerText()}`);
      return Number(n);
    };
    await box.fill(draft);
    await page.getByRole('button', { name: 'Context', exact: true }).click();
    const before = await estimate();
    await page.getByRole('button', { name: 'Context', exact: true }).click();
    await region.waitFor({ state: 'detached' });
    const chunk = (o) => `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'mystery-model', ...o })}\n\n`;
    e2e.fake.enqueue({
      raw: [
        chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Counted.' }, finish_reason: null }] }),
        chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
        chunk({ choices: [], usage: { prompt_tokens: 100000, completion_tokens: 2, total_tokens: 100002 } }),
        'data: [DONE]\n\n',
      ],
    });
    await sendMessage(page, 'hello');
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    await box.fill(draft);
    await page.getByRole('button', { name: 'Context', exact: true }).click();
    const after = await estimate();
    // The correction is smoothed and bounded (at most 3×); the chat grew by two short messages.
    assert.ok(after > before * 2.3 && after < before * 3.2, `estimate ${before} → ${after}`);
  });
});

test('Stop while the turns module is still loading ends the turn at once; nothing is sent', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    // The module's files never arrive.
    await page.route(/\/turns-[0-9a-f]+\//, () => {});
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('Are you there?');
    await box.press('Enter');
    const stop = page.getByRole('button', { name: 'Stop', exact: true });
    await stop.waitFor();
    await stop.click();
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: 3000 });
    assert.equal(e2e.fake.chatRequests().length, 0, 'nothing was sent');
    assert.equal(await page.getByRole('alert').filter({ hasText: /turns module/ }).count(), 0, 'Stop is not an error');
  });
});

test('a long chat sends the turns module only the text it needs; a wider window still gets every old message whole', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page, { summarize: false });
    await chat(page, 1);
    // Make the chat 300 messages long (as months of use would), then reload.
    {
      const s = await openChat(page);
      let parent = s.leaf;
      for (let i = 0; i < 300; i++) {
        const id = `old${i}`;
        s.messages.push({ id, parent, role: i % 2 ? 'assistant' : 'user', content: `Old turn ${i}: river stone maple`, status: 'complete', created_at: 2 });
        parent = id;
      }
      s.leaf = parent;
      await writeChat(page, s);
    }
    await reload(page);
    await chat(page, 2);
    // The second send knew how far back the first one read: the module got old turns without
    // their text, and the request is what it would have been anyway.
    let body = chatCalls().at(-1).body;
    assert.ok(requestTokens(body) <= BUDGET);
    assert.match(body.messages.at(-1).content, /^Question 1:/);
    assert.ok(!JSON.stringify(body).includes('\\u0001'), 'no placeholder text reaches the server');
    await page.getByRole('button', { name: 'Context', exact: true }).click();
    const region = page.getByRole('region', { name: 'Context inspector', exact: true });
    await region.locator('.ctx-total').waitFor();
    // The report of the request just sent shows the old turns as runs it did not read.
    await region.locator('.inspector > label select').selectOption({ index: 1 });
    await region.getByText(/^\d+ earlier messages \(their text was not needed\)$/).first().waitFor();
    await region.locator('.inspector > label select').selectOption({ index: 0 });
    // A window that reaches much further back: every old message it reaches goes out whole.
    await region.locator('.ctx-total').waitFor();
    await region.getByText("This chat's context settings").click();
    await region.getByLabel('Chat context window', { exact: true }).fill('6000');
    await region.getByRole('button', { name: 'Save for this chat', exact: true }).click();
    await sendMessage(page, 'And the oldest turns?');
    await waitIdle(page);
    body = chatCalls().at(-1).body;
    const old = body.messages.filter((m) => /^Old turn \d+: river stone maple$/.test(m.content));
    assert.ok(old.length > 150, `${old.length} old turns sent whole`);
    assert.ok(!body.messages.some((m) => m.content === '\u0001' || m.content === ''), 'every sent message has its text');
    assert.ok(requestTokens(body) <= 6000 - RESERVE - 60, `${requestTokens(body)} tokens`);
  });
});
