// Agent mode against the scripted fake server: the model's streamed tool calls run in the
// browser (calculator, clock, recall of earlier chats), their results go back with matching
// `tool_call_id`s, and the loop goes on until the model answers — or Stop, or "Max steps".
// Bad calls (unknown tool, invalid arguments, a division by zero) go back to the model as
// results; a server that ignores the tools simply answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './support/app.mjs';
import {
  articles,
  byName,
  configure,
  conversation,
  lastAssistant,
  poll,
  reload,
  sendMessage,
  stopButton,
  textOf,
  waitForStatus,
  waitIdle,
  openSession,
} from './support/browser.mjs';

const e2e = useApp();

async function setup(page, { maxSteps } = {}) {
  e2e.fake.reset();
  await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-agent' });
  await page.getByRole('button', byName('Agent')).click();
  const dialog = page.getByRole('dialog', byName('Agent'));
  await dialog.getByRole('checkbox', byName('Agent mode')).check();
  if (maxSteps !== undefined) await dialog.getByLabel('Max steps', { exact: true }).fill(String(maxSteps));
  await dialog.getByRole('button', byName('Save')).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('button', byName('Agent: on')).waitFor();
}

/** The tool messages of a request body, by the call they answer. */
function toolResults(body) {
  return Object.fromEntries(body.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]));
}

/** Every call of every assistant message of `body` is answered by exactly one tool message, right after it. */
function assertProtocol(body) {
  const msgs = body.messages;
  msgs.forEach((m, i) => {
    if (m.role !== 'assistant' || !m.tool_calls) return;
    const answers = [];
    for (let j = i + 1; j < msgs.length && msgs[j].role === 'tool'; j++) answers.push(msgs[j].tool_call_id);
    assert.deepEqual(answers.sort(), m.tool_calls.map((c) => c.id).sort(), 'each call has its one result, right after it');
  });
  for (const m of msgs.filter((x) => x.role === 'tool')) {
    assert.equal(msgs.filter((x) => x.role === 'tool' && x.tool_call_id === m.tool_call_id).length, 1);
  }
}

test('a multi-step tool run: calls streamed in pieces run in the browser, results go back by id, the model answers', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue(
      {
        chunks: ['Let me work it out.'],
        toolCalls: [
          { id: 'call_a1', name: 'calculator', arguments: '{"expression":"(1200*3 + 45.5) / 7"}' },
          { id: 'call_b2', name: 'current_time', arguments: '' },
        ],
        argPiece: 3,
      },
      { toolCalls: [{ id: 'call_c3', name: 'calculator', arguments: '{"expression": "2^100 + 1"}' }] },
      { chunks: ['Each share is ', '520.79.'] },
    );
    await sendMessage(page, 'Split 3645.5 seven ways');
    await poll(async () => e2e.fake.chatRequests().length === 3, { timeout: 15_000, message: 'three requests' });
    await waitIdle(page);
    const [first, second, third] = e2e.fake.chatRequests().map((r) => r.body);

    // Every step offers the tools.
    for (const body of [first, second, third]) {
      assert.deepEqual(body.tools.map((x) => x.function.name), ['calculator', 'current_time', 'search_chats', 'planner']);
      assert.equal(body.tools[0].type, 'function');
      assertProtocol(body);
    }
    // Step 2 carries the first reply's calls, assembled from their pieces, and both results.
    const call = second.messages.find((m) => m.role === 'assistant' && m.tool_calls);
    assert.equal(call.content, 'Let me work it out.');
    assert.deepEqual(call.tool_calls.map((c) => [c.id, c.function.name, c.function.arguments]), [
      ['call_a1', 'calculator', '{"expression":"(1200*3 + 45.5) / 7"}'],
      ['call_b2', 'current_time', ''],
    ]);
    const r2 = toolResults(second);
    assert.equal(r2.call_a1, '520.78571428571428571429');
    assert.match(r2.call_b2, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, time zone /);
    // Step 3 adds the second round: exact big integers.
    assert.equal(toolResults(third).call_c3, '1267650600228229401496703205377');
    assert.equal(third.messages.at(-1).role, 'tool');

    // On screen: the calls and their results, collapsed, then the answer.
    assert.equal(await articles(page, 'tool').count(), 3);
    assert.equal(await articles(page, 'assistant').count(), 3);
    await conversation(page).getByText('Called calculator, current_time', { exact: true }).waitFor();
    assert.equal(await textOf(lastAssistant(page)), 'Each share is 520.79.');

    // Stored with the chat: a reload shows the same run.
    await reload(page);
    await poll(async () => (await articles(page, 'tool').count()) === 3, { message: 'tool results after reload' });
    await articles(page, 'tool').first().locator('summary').click();
    await articles(page, 'tool').first().getByText('520.78571428571428571429').waitFor();
  });
});

test('bad calls go back to the model as results: unknown tool, invalid arguments, division by zero', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'weather', arguments: '{"city":"上海"}' },
          { id: 'c2', name: 'calculator', arguments: '{"expr":"1+1"}' },
          { id: 'c3', name: 'calculator', arguments: '{"expression":"1/(2-2)"}' },
          { id: 'c4', name: 'calculator', arguments: '{"expression": "12 × 3 ÷ 4"' },
        ],
      },
      { chunks: ['Sorry, I could not compute that.'] },
    );
    await sendMessage(page, 'Try the tools');
    await poll(async () => e2e.fake.chatRequests().length === 2, { message: 'two requests' });
    await waitIdle(page);
    const results = toolResults(e2e.fake.chatRequests()[1].body);
    assert.match(results.c1, /^Error: there is no tool `weather` \(tools: calculator, current_time, search_chats, planner\)\.$/);
    assert.match(results.c2, /^Error: calling `calculator`: invalid arguments:\n- `\$`: missing required property `expression`/);
    assert.match(results.c3, /^Error: division by zero/);
    // An unclosed object is repaired locally; full-width operators are understood.
    assert.equal(results.c4, '9');
    assert.equal(await textOf(lastAssistant(page)), 'Sorry, I could not compute that.');
    assert.equal(await page.getByRole('alert').count(), 0);
  });
});

test('search_chats recalls earlier messages of other chats, Chinese included', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    const at = 1764000000000;
    const old = {
      v: 1, id: 'old', title: '退货', role: '', created_at: at, updated_at: at + 2000,
      messages: [
        { id: 'o1', role: 'user', content: '我的订单号是 SO-88231，金额 ¥1,299。', status: 'complete', created_at: at },
        { id: 'o2', role: 'assistant', content: '好的，已记下订单号。', status: 'complete', created_at: at + 1000, parent: 'o1' },
        { id: 'o3', role: 'user', content: 'Unrelated: the weather in Paris.', status: 'complete', created_at: at + 2000, parent: 'o2' },
      ],
      leaf: 'o3',
    };
    await page.evaluate(([c]) => {
      localStorage.setItem('satori.session.old', c);
      localStorage.setItem('satori.index', JSON.stringify({ v: 1, sessions: [{ id: 'old', title: '退货', updated_at: 1764000002000 }], active: 'old' }));
    }, [JSON.stringify(old)]);
    await reload(page);
    await page.getByRole('button', byName('New chat')).click();
    await setup(page);
    e2e.fake.enqueue(
      { toolCalls: [{ id: 'r1', name: 'search_chats', arguments: '{"query":"订单号","limit":2}' }] },
      { chunks: ['Your order number is SO-88231.'] },
    );
    await sendMessage(page, '我上次说的订单号是多少？');
    await poll(async () => e2e.fake.chatRequests().length === 2, { message: 'two requests' });
    await waitIdle(page);
    const result = toolResults(e2e.fake.chatRequests()[1].body).r1;
    assert.match(result, /SO-88231/);
    assert.match(result, /退货/, 'the chat it came from');
    assert.doesNotMatch(result, /Paris/);
    // The question being answered is in the request already: not recalled.
    assert.doesNotMatch(result, /我上次说的/);
  });
});

test('"Max steps" ends a loop that never answers, and says so', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page, { maxSteps: 3 });
    let n = 0;
    e2e.fake.setDefault(() => ({ toolCalls: [{ id: `loop_${++n}`, name: 'calculator', arguments: `{"expression":"${n}+1"}` }] }));
    await sendMessage(page, 'Count forever');
    await page.getByText('Agent mode stopped after 3 steps').waitFor({ timeout: 15_000 });
    await waitIdle(page);
    // Give a fourth request the time it would need to be made.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(e2e.fake.chatRequests().length, 3);
    assert.equal(await articles(page, 'tool').count(), 2);
  });
});

test('Stop in the middle of a loop ends it and keeps what happened', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue(
      { toolCalls: [{ id: 's1', name: 'calculator', arguments: '{"expression":"6*7"}' }] },
      { chunks: ['Thinking ', 'about ', 'it '], delayMs: 100, stall: true },
    );
    await sendMessage(page, 'Go');
    await poll(async () => e2e.fake.chatRequests().length === 2, { message: 'the second step' });
    await poll(async () => (await textOf(lastAssistant(page))).startsWith('Thinking'), { message: 'the second step streaming' });
    await stopButton(page).click();
    await waitForStatus(lastAssistant(page), ['stopped']);
    await waitIdle(page);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(e2e.fake.chatRequests().length, 2, 'no step after Stop');
    assert.equal(await articles(page, 'tool').count(), 1);
    assert.equal(toolResults(e2e.fake.chatRequests()[1].body).s1, '42');
  });
});

test('Stop while a tool runs keeps the results of the calls that finished; the one cut short says so', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'calculator', arguments: '{"expression":"6*7"}' },
          { id: 'p1', name: 'planner', arguments: '{"goal":"Move house"}' },
          { id: 'c2', name: 'calculator', arguments: '{"expression":"1+1"}' },
        ],
      },
      // The planner's request never ends.
      { chunks: ['{"goal": '], stall: true },
    );
    await sendMessage(page, 'Go');
    await poll(async () => e2e.fake.chatRequests().length === 2, { message: "the planner's request" });
    await stopButton(page).click();
    await waitIdle(page);
    await poll(async () => (await articles(page, 'tool').count()) === 3, { message: 'three results kept' });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(e2e.fake.chatRequests().length, 2, 'no step after Stop');
    const tools = (await openSession(page)).messages.filter((m) => m.role === 'tool');
    assert.deepEqual(
      tools.map((m) => [m.tool_call_id, m.content]),
      [
        ['c1', '42'],
        ['p1', 'Error: stopped by the user before this tool finished.'],
        ['c2', 'Error: stopped by the user before this tool finished.'],
      ],
    );
  });
});

test('a server that ignores the tools just answers; a chat not in agent mode offers none', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue({ chunks: ['Plain answer, no tools.'] });
    await sendMessage(page, 'What is 2+2?');
    await waitIdle(page);
    assert.equal(await textOf(lastAssistant(page)), 'Plain answer, no tools.');
    assert.equal(e2e.fake.chatRequests().length, 1);
    assert.ok(e2e.fake.chatRequests()[0].body.tools);

    await page.getByRole('button', byName('New chat')).click();
    await page.getByRole('button', byName('Agent')).waitFor();
    e2e.fake.enqueue({ chunks: ['No tools here.'] });
    await sendMessage(page, 'Hello');
    await waitIdle(page);
    assert.equal(e2e.fake.chatRequests()[1].body.tools, undefined);
  });
});

test('a server that refuses tools: the chat switches to ReAct text, whose actions run until the final answer', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue(
      { status: 400, body: { error: { message: 'registry.ollama.ai/library/gemma:2b does not support tools' } } },
      { chunks: ['Thought: I should multiply.\n', 'Action: calculator("6 * 7")'] },
      { chunks: ['Thought: I know the answer.\nFinal Answer: 6 × 7 = 42.'] },
    );
    await sendMessage(page, 'What is 6 times 7?');
    await poll(async () => e2e.fake.chatRequests().length === 3, { timeout: 15_000, message: 'three requests' });
    await waitIdle(page);
    const [refused, first, second] = e2e.fake.chatRequests().map((r) => r.body);
    assert.ok(refused.tools, 'the first request offered the tools');
    // ReAct: no tools field, the tools described in the system prompt, a stop sequence.
    for (const body of [first, second]) {
      assert.equal(body.tools, undefined);
      assert.deepEqual(body.stop, ['\nObservation:']);
      assert.equal(body.messages[0].role, 'system');
      assert.match(body.messages[0].content, /Final Answer:/);
      assert.match(body.messages[0].content, /- calculator: /);
      assert.ok(body.messages.every((m) => m.role !== 'tool' && !m.tool_calls), 'no function-calling messages');
    }
    // The observation goes back as a user message after the reply's own text.
    assert.deepEqual(second.messages.slice(-2).map((m) => [m.role, m.content]), [
      ['assistant', 'Thought: I should multiply.\nAction: calculator("6 * 7")'],
      ['user', 'Observation: 42'],
    ]);
    await page.getByText('agent mode now describes them in the system prompt').waitFor();
    assert.equal(await articles(page, 'tool').count(), 1);
    assert.match(await textOf(lastAssistant(page)), /Final Answer: 6 × 7 = 42\./);
    assert.equal(await page.getByRole('alert').count(), 0);
    // The chat stays in ReAct text.
    e2e.fake.enqueue({ chunks: ['Final Answer: hello.'] });
    await sendMessage(page, 'Hi');
    await waitIdle(page);
    assert.equal(e2e.fake.chatRequests()[3].body.tools, undefined);
  });
});

test('a ReAct reply in neither form ends the loop with a clear message', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue(
      { status: 500, body: { error: { message: 'tools param requires --jinja flag' } } },
      { chunks: ['I think the answer is probably 42, but let me not use any format.'] },
    );
    await sendMessage(page, 'What is 6 times 7?');
    await page.getByText(/Agent mode stopped: the model's reply was neither an Action nor a Final Answer/).waitFor({ timeout: 15_000 });
    await waitIdle(page);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(e2e.fake.chatRequests().length, 2);
    assert.match(await textOf(lastAssistant(page)), /probably 42/);
  });
});

const PLAN_SCHEMA_ID = /"id":\{"minimum":1,"type":"integer"\}/;

test('the planner: its invalid output goes back to the model with the exact errors, and the repaired plan shows as a checklist', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const bad = '```json\n{"goal": "Move house", "steps": [{"id": "1", "action": "Book a van", "done_when": "a van is booked"}], "questions": []}\n```';
    const good = '{"goal": "Move house", "steps": [{"id": 1, "action": "Book a van", "done_when": "a van is booked"}, {"id": 2, "action": "Pack", "done_when": "every box is closed", "depends_on": [1]}], "questions": ["Which date?"]}';
    e2e.fake.enqueue(
      { toolCalls: [{ id: 'p1', name: 'planner', arguments: '{"goal":"Move house"}' }] },
      { chunks: [bad] },
      { chunks: [good] },
      { chunks: ['Here is the plan.'] },
    );
    await sendMessage(page, 'Help me move house');
    await poll(async () => e2e.fake.chatRequests().length === 4, { timeout: 15_000, message: 'four requests' });
    await waitIdle(page);
    const [, first, second, last] = e2e.fake.chatRequests().map((r) => r.body);
    // The planner's own request: its system prompt, the goal, structured output asked for.
    assert.equal(first.messages[0].role, 'system');
    assert.match(first.messages[0].content, /planner/i);
    assert.deepEqual(first.messages.at(-1), { role: 'user', content: 'Move house' });
    assert.equal(first.response_format.type, 'json_schema');
    assert.match(JSON.stringify(first.response_format.json_schema.schema), PLAN_SCHEMA_ID);
    assert.equal(first.tools, undefined);
    // The repair request quotes the invalid output and the exact error.
    assert.equal(second.messages.at(-2).content, bad);
    assert.match(second.messages.at(-1).content, /`\$\.steps\[0\]\.id`: expected integer, got string "1"/);
    // The model gets the plan as a checklist with how it was obtained.
    const plan = toolResults(last).p1;
    assert.match(plan, /^Plan \(repaired by the model, 1 try\): Move house\n☐ 1\. Book a van — done when: a van is booked\n☐ 2\. Pack — done when: every box is closed \(after 1\)\nQuestions:\n- Which date\?\nJSON: /);
    await articles(page, 'tool').first().locator('summary').click();
    await articles(page, 'tool').first().getByText('Plan (repaired by the model, 1 try): Move house', { exact: false }).waitFor();
    assert.equal(await textOf(lastAssistant(page)), 'Here is the plan.');
  });
});

test('a plan that never becomes valid: a bounded number of requests, and "Plan unavailable" for the model and on screen', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue(
      { toolCalls: [{ id: 'p2', name: 'planner', arguments: '{"goal":"Plan a trip"}' }] },
      // A server without structured output refuses response_format: asked again without it.
      { status: 400, body: { error: { message: "Unrecognized request argument supplied: response_format" } } },
      { chunks: ['Sure! First you should book flights, then a hotel.'] },
      { chunks: ['I cannot produce JSON, sorry.'] },
      { chunks: ['Step 1: flights. Step 2: hotel.'] },
      { chunks: ['I could not make a plan.'] },
    );
    await sendMessage(page, 'Plan my trip');
    await poll(async () => e2e.fake.chatRequests().length === 6, { timeout: 15_000, message: 'six requests' });
    await waitIdle(page);
    await new Promise((r) => setTimeout(r, 300));
    const bodies = e2e.fake.chatRequests().map((r) => r.body);
    assert.equal(bodies.length, 6, 'the first step, the refused request, three planner tries, the answer');
    assert.ok(bodies[1].response_format);
    for (const b of bodies.slice(2, 5)) assert.equal(b.response_format, undefined);
    const result = toolResults(bodies[5]).p2;
    assert.match(result, /^Plan unavailable: /);
    await articles(page, 'tool').first().locator('summary').click();
    await articles(page, 'tool').first().getByText(/^Plan unavailable: /).waitFor();
    assert.equal(await textOf(lastAssistant(page)), 'I could not make a plan.');
  });
});

/** A planner call whose plan lists its steps out of dependency order, then the model's answer. */
function planScript() {
  const plan = {
    goal: 'Move house',
    steps: [
      { id: 1, action: 'Book a van', done_when: 'a van is booked' },
      { id: 3, action: 'Clean the old flat', done_when: 'the flat is clean', depends_on: [2] },
      { id: 2, action: 'Pack', done_when: 'every box is closed', depends_on: [1] },
    ],
    questions: [],
  };
  return [
    { toolCalls: [{ id: 'p1', name: 'planner', arguments: '{"goal":"Move house"}' }] },
    { chunks: [JSON.stringify(plan)] },
    { chunks: ['Here is the plan.'] },
  ];
}

const planBox = (page) => articles(page, 'tool').first().getByRole('group', byName('Plan'));
const lastUserText = (body) => body.messages.filter((m) => m.role === 'user').at(-1).content;

test('Run plan: the steps run in dependency order, each an agent turn, checked off as their answers arrive', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue(...planScript());
    await sendMessage(page, 'Help me move house');
    await poll(async () => e2e.fake.chatRequests().length === 3, { timeout: 15_000, message: 'the plan made' });
    await waitIdle(page);
    const plan = planBox(page);
    await plan.getByText('0 of 3 steps done', { exact: true }).waitFor();

    e2e.fake.enqueue(
      { chunks: ['Van booked for Saturday.'] },
      { toolCalls: [{ id: 'k1', name: 'calculator', arguments: '{"expression":"12*3"}' }] },
      { chunks: ['Packed 36 boxes.'] },
      { chunks: ['The flat is clean.'] },
    );
    await plan.getByRole('button', byName('Run plan')).click();
    await poll(async () => e2e.fake.chatRequests().length === 7, { timeout: 20_000, message: 'three steps, one with a tool call' });
    await waitIdle(page);
    const bodies = e2e.fake.chatRequests().map((r) => r.body);
    // Dependency order (1, 2, 3), not the listed order (1, 3, 2); each step's message says what
    // and when it is done; a step may call tools (its turn goes on until it answers).
    assert.match(lastUserText(bodies[3]), /^Plan step 1: Book a van\nDone when: a van is booked\n\(Step 1 of 3 of the plan for: Move house\./);
    assert.match(lastUserText(bodies[4]), /^Plan step 2: Pack\n/);
    assert.equal(bodies[5].messages.at(-1).role, 'tool', 'the step-2 turn went on after its tool call');
    assert.match(lastUserText(bodies[6]), /^Plan step 3: Clean the old flat\n/);
    for (const b of bodies.slice(3)) assert.ok(b.tools, 'each step is an agent turn');
    await plan.getByText('3 of 3 steps done', { exact: true }).waitFor();
    assert.equal(await plan.locator('li.done').count(), 3);
    await page.getByText('Plan done: all 3 steps checked off.', { exact: true }).waitFor();
    // Nothing is left to run.
    assert.equal(await plan.getByRole('button', byName('Run plan')).isDisabled(), true);

    // The checklist is read from the conversation: a reload shows it the same.
    await reload(page);
    await planBox(page).getByText('3 of 3 steps done', { exact: true }).waitFor();
  });
});

test('Run plan: Stop ends the run at its step; running it again goes on from the step not done', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue(...planScript());
    await sendMessage(page, 'Help me move house');
    await poll(async () => e2e.fake.chatRequests().length === 3, { timeout: 15_000, message: 'the plan made' });
    await waitIdle(page);
    e2e.fake.enqueue(
      { chunks: ['Van booked.'] },
      { chunks: ['Packing ', 'the ', 'kitchen '], delayMs: 100, stall: true },
    );
    const plan = planBox(page);
    await plan.getByRole('button', byName('Run plan')).click();
    await poll(async () => e2e.fake.chatRequests().length === 5, { message: 'step 2 asked' });
    await poll(async () => (await textOf(lastAssistant(page))).startsWith('Packing'), { message: 'step 2 streaming' });
    await stopButton(page).click();
    await waitIdle(page);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(e2e.fake.chatRequests().length, 5, 'no step after Stop');
    await plan.getByText('1 of 3 steps done', { exact: true }).waitFor();

    e2e.fake.enqueue({ chunks: ['Packed.'] }, { chunks: ['Clean.'] });
    await plan.getByRole('button', byName('Run plan')).click();
    await poll(async () => e2e.fake.chatRequests().length === 7, { timeout: 15_000, message: 'steps 2 and 3' });
    await waitIdle(page);
    const bodies = e2e.fake.chatRequests().map((r) => r.body);
    assert.match(lastUserText(bodies[5]), /^Plan step 2: Pack\n/);
    assert.match(lastUserText(bodies[6]), /^Plan step 3: /);
    await plan.getByText('3 of 3 steps done', { exact: true }).waitFor();
  });
});

test('Run plan: a step that ends without an answer is not sent again in a loop', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue(...planScript());
    await sendMessage(page, 'Help me move house');
    await poll(async () => e2e.fake.chatRequests().length === 3, { timeout: 15_000, message: 'the plan made' });
    await waitIdle(page);
    // Max steps 1: step 1's tool call ends its turn without an answer.
    await page.getByRole('button', byName('Agent: on')).click();
    const dialog = page.getByRole('dialog', byName('Agent'));
    await dialog.getByLabel('Max steps', { exact: true }).fill('1');
    await dialog.getByRole('button', byName('Save')).click();
    await dialog.waitFor({ state: 'hidden' });
    e2e.fake.enqueue({ toolCalls: [{ id: 'x1', name: 'calculator', arguments: '{"expression":"1+1"}' }] });
    const plan = planBox(page);
    await plan.getByRole('button', byName('Run plan')).click();
    await poll(async () => e2e.fake.chatRequests().length === 4, { message: 'step 1 asked' });
    await waitIdle(page);
    // The run ends with the step limit's own words; the step is not checked off.
    await page.getByText(/^Agent mode stopped after 1 steps/).waitFor();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(e2e.fake.chatRequests().length, 4, 'step 1 is not sent again by itself');
    await plan.getByText('0 of 3 steps done', { exact: true }).waitFor();
  });
});
