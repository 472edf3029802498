// Structured output against the scripted fake server: a chat started from a template that
// declares an `output_schema` (the built-in planner, or a user template) asks for it with
// `response_format`, and each reply is checked against the schema once it ends — valid as sent,
// repaired locally, sent back to the model with the exact errors (a bounded number of times),
// or unusable — and the outcome shows under the reply. A server that refuses `response_format`
// is asked again without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './support/app.mjs';
import {
  byName,
  configure,
  importPrompts,
  lastAssistant,
  openPrompts,
  openSession,
  poll,
  reload,
  sendMessage,
  textOf,
  waitIdle,
} from './support/browser.mjs';

const e2e = useApp();

async function plannerChat(page) {
  e2e.fake.reset();
  await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-structured' });
  await page.getByRole('combobox', byName('Role')).selectOption('builtin:planner');
  await page.locator('button.new-chat').click();
  await poll(async () => (await openSession(page)).prompt?.key === 'planner', { message: 'a planner chat' });
}

/** The line under the last reply that says how it matched the schema. */
const outcome = (page) => lastAssistant(page).locator('.msg-structured');

async function storedReply(page) {
  const s = await openSession(page);
  return s.messages.filter((m) => m.role === 'assistant' && !m.example).at(-1);
}

const GOOD = { goal: 'Team offsite', steps: [{ id: 1, action: 'Book a venue', done_when: 'a venue is booked' }], questions: [] };
const BAD_ID = '{"goal": "Team offsite", "steps": [{"id": "1", "action": "Book a venue", "done_when": "a venue is booked"}], "questions": []}';

test('a planner chat asks for its schema; a fenced reply with a trailing comma is repaired locally and shown as JSON', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await plannerChat(page);
    const fenced = '```json\n{"goal": "Team offsite", "steps": [{"id": 1, "action": "Book a venue", "done_when": "a venue is booked"},], "questions": []}\n```';
    e2e.fake.enqueue({ chunks: [fenced] });
    await sendMessage(page, 'Plan a team offsite.');
    await outcome(page).filter({ hasText: /^JSON repaired locally: / }).waitFor();
    await waitIdle(page);
    const [body] = e2e.fake.chatRequests().map((r) => r.body);
    assert.equal(e2e.fake.chatRequests().length, 1, 'no repair request for a local repair');
    assert.equal(body.response_format.type, 'json_schema');
    assert.equal(body.response_format.json_schema.name, 'planner');
    assert.deepEqual(body.response_format.json_schema.schema.required, ['goal', 'steps', 'questions']);
    assert.match(await outcome(page).innerText(), /fence/);
    assert.match(await outcome(page).innerText(), /trailing comma/);
    // The reply is the repaired JSON, drawn as a code block; what the model wrote is kept.
    const stored = await storedReply(page);
    assert.deepEqual(JSON.parse(stored.content), GOOD);
    assert.equal(stored.structured.outcome, 'repaired');
    assert.equal(stored.structured.original, fenced);
    await lastAssistant(page).locator('pre code').first().waitFor();
    assert.deepEqual(JSON.parse(await lastAssistant(page).locator('pre code').first().innerText()), GOOD);
    // It survives a reload, and the next request sends the repaired JSON back.
    await reload(page);
    await outcome(page).filter({ hasText: /^JSON repaired locally: / }).waitFor();
    e2e.fake.enqueue({ chunks: [JSON.stringify(GOOD)] });
    await sendMessage(page, 'Again, please.');
    await outcome(page).filter({ hasText: "Valid JSON: matches the template's schema" }).waitFor();
    await waitIdle(page);
    const next = e2e.fake.chatRequests()[1].body;
    assert.deepEqual(JSON.parse(next.messages.at(-2).content), GOOD);
    assert.equal(e2e.fake.chatRequests().length, 2);
    assert.equal((await storedReply(page)).structured.original, undefined, 'a valid reply is kept as sent');
  });
});

test('an invalid reply goes back to the model with the exact errors; a server that refuses response_format is asked again without it', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await plannerChat(page);
    e2e.fake.enqueue(
      { status: 400, body: { error: { message: 'Unrecognized request argument supplied: response_format' } } },
      { chunks: [BAD_ID] },
      { chunks: [JSON.stringify(GOOD)] },
    );
    await sendMessage(page, 'Plan a team offsite.');
    await outcome(page).filter({ hasText: 'JSON repaired by the model (1 try)' }).waitFor();
    await waitIdle(page);
    const bodies = e2e.fake.chatRequests().map((r) => r.body);
    assert.equal(bodies.length, 3, 'refused, asked again, one repair');
    assert.ok(bodies[0].response_format);
    assert.equal(bodies[1].response_format, undefined, 'asked again without response_format');
    assert.equal(bodies[2].response_format, undefined, 'the repair request neither');
    // The repair request: the template's system prompt and example, the question, the invalid
    // reply and the exact error.
    const repair = bodies[2].messages;
    assert.deepEqual(repair.map((m) => m.role), ['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    assert.equal(repair[3].content, 'Plan a team offsite.');
    assert.equal(repair[4].content, BAD_ID);
    assert.match(repair[5].content, /`\$\.steps\[0\]\.id`: expected integer, got string "1"/);
    const stored = await storedReply(page);
    assert.deepEqual(JSON.parse(stored.content), GOOD);
    assert.deepEqual([stored.structured.outcome, stored.structured.line, stored.structured.original], ['repaired_by_model', 'JSON repaired by the model (1 try)', BAD_ID]);
    assert.equal((await openSession(page)).messages.filter((m) => m.role === 'assistant' && !m.example).length, 1, 'the refused attempt left no reply');
    // That server and model are asked without it from now on.
    e2e.fake.enqueue({ chunks: [JSON.stringify(GOOD)] });
    await sendMessage(page, 'Once more.');
    await outcome(page).filter({ hasText: "Valid JSON: matches the template's schema" }).waitFor();
    await waitIdle(page);
    assert.equal(e2e.fake.chatRequests().length, 4);
    assert.equal(e2e.fake.chatRequests()[3].body.response_format, undefined);
  });
});

test('a reply that never matches: a bounded number of requests, "Plan unavailable" under it, its text as the model wrote it', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await plannerChat(page);
    e2e.fake.enqueue(
      { chunks: ['Sure! First book a venue, then send the invitations.'] },
      { chunks: ['I cannot write JSON, sorry.'] },
      { chunks: ['Step 1: venue. Step 2: invitations.'] },
    );
    await sendMessage(page, 'Plan a team offsite.');
    await outcome(page).filter({ hasText: /^Plan unavailable: still invalid after 2 repair attempts: / }).waitFor();
    await waitIdle(page);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(e2e.fake.chatRequests().length, 3, 'the reply and two repair requests, no more');
    const bodies = e2e.fake.chatRequests().map((r) => r.body);
    assert.ok(bodies[1].response_format && bodies[2].response_format, 'a server that took response_format gets it with the repairs too');
    assert.equal(await textOf(lastAssistant(page)), 'Sure! First book a venue, then send the invitations.');
    const stored = await storedReply(page);
    assert.equal(stored.content, 'Sure! First book a venue, then send the invitations.');
    assert.equal(stored.structured.outcome, 'failed');
    assert.match(stored.structured.line, /^Plan unavailable: still invalid after 2 repair attempts: /);
  });
});

const EXTRACT = `extract:
  version: 1
  description: Reads an order number out of a message.
  system: |
    Answer with JSON only: {{"order": "A-<digits>"}}.
  output_schema: |
    {"type": "object", "required": ["order"], "additionalProperties": false,
     "properties": {"order": {"type": "string", "pattern": "^A-[0-9]+$"}}}
`;

test('any template with an output_schema: a user template valid as sent, then one that never matches ("Output unavailable")', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-structured' });
    const dialog = await openPrompts(page);
    await importPrompts(dialog, 'extract.yaml', EXTRACT);
    await dialog.getByRole('status').filter({ hasText: 'Imported 1 prompt' }).waitFor();
    await dialog.getByRole('button', { name: /^extract/ }).click();
    await dialog.getByRole('button', byName('Use in new chat')).click();
    await dialog.waitFor({ state: 'hidden' });
    await poll(async () => (await openSession(page)).prompt?.key === 'extract', { message: 'an extract chat' });
    e2e.fake.enqueue({ chunks: ['{"order": ', '"A-1042"}'] });
    await sendMessage(page, 'Where is my order A-1042?');
    await outcome(page).filter({ hasText: "Valid JSON: matches the template's schema" }).waitFor();
    await waitIdle(page);
    const first = e2e.fake.chatRequests()[0].body;
    assert.equal(first.response_format.json_schema.name, 'extract');
    assert.deepEqual(first.response_format.json_schema.schema.required, ['order']);
    assert.equal((await storedReply(page)).content, '{"order": "A-1042"}');

    e2e.fake.enqueue(
      { chunks: ['{"order": "1042"}'] },
      { chunks: ['{"order": 1042}'] },
      { chunks: ['{"number": "A-1042"}'] },
    );
    await sendMessage(page, 'And order 1042?');
    await outcome(page).filter({ hasText: /^Output unavailable: still invalid after 2 repair attempts: / }).waitFor();
    await waitIdle(page);
    const bodies = e2e.fake.chatRequests().map((r) => r.body);
    assert.equal(bodies.length, 4);
    assert.match(bodies[2].messages.at(-1).content, /`\$\.order`: .*pattern/);
    assert.equal((await storedReply(page)).content, '{"order": "1042"}');
  });
});

test('Stop during a repair ends it: recorded as stopped, no further request', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await plannerChat(page);
    e2e.fake.enqueue({ chunks: ['Not JSON yet.'] }, { chunks: ['{"goal": '], stall: true });
    await sendMessage(page, 'Plan a team offsite.');
    await poll(async () => e2e.fake.chatRequests().length === 2, { message: 'the repair request' });
    await page.getByRole('button', byName('Stop')).click();
    await outcome(page).filter({ hasText: 'Plan unavailable: stopped.' }).waitFor();
    await waitIdle(page);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(e2e.fake.chatRequests().length, 2);
    assert.equal((await storedReply(page)).content, 'Not JSON yet.');
  });
});
