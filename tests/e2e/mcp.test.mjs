// MCP servers in agent mode, against a real MCP server (the official Python SDK, Streamable HTTP,
// started on 127.0.0.1 by support/mcp.mjs): Settings lists a server's tools with switches, the
// switched-on ones are offered to the model, its calls run on the server with the server's own
// bearer token — which goes nowhere else and is never exported — and failures (unreachable, CORS,
// a wrong token, a server gone mid-chat) are said clearly and never break the chat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { useApp } from './support/app.mjs';
import { startMcp } from './support/mcp.mjs';
import {
  alerts,
  articles,
  byName,
  configure,
  conversation,
  lastAssistant,
  localStorageEntries,
  openSession,
  poll,
  reload,
  sendMessage,
  textOf,
  waitIdle,
} from './support/browser.mjs';

const e2e = useApp();
const TOKEN = 'mcp-secret-7f3a';
const API_KEY = 'sk-e2e-mcp';
const SERVER = 'Satori test tools';
const BUILTIN = ['calculator', 'current_time', 'search_chats', 'planner'];

async function agentOn(page) {
  e2e.fake.reset();
  await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: API_KEY });
  await page.getByRole('button', byName('Agent')).click();
  const dialog = page.getByRole('dialog', byName('Agent'));
  await dialog.getByRole('checkbox', byName('Agent mode')).check();
  await dialog.getByRole('button', byName('Save')).click();
  await page.getByRole('button', byName('Agent: on')).waitFor();
}

async function openSettings(page) {
  await page.getByRole('button', byName('Settings')).first().click();
  const dialog = page.getByRole('dialog', byName('Settings'));
  await dialog.waitFor();
  return dialog;
}

/** Type a server into Settings and press "Add MCP server". */
async function addServer(dialog, url, token) {
  await dialog.getByLabel('MCP server URL', { exact: true }).fill(url);
  if (token !== undefined) await dialog.getByLabel('MCP bearer token', { exact: true }).fill(token);
  await dialog.getByRole('button', byName('Add MCP server')).click();
}

const server = (dialog) => dialog.getByRole('group', byName(`MCP server ${SERVER}`));

/** Choose when the calls of the server shown in `group` ask first ("Tool calls"). */
async function toolCalls(group, choice) {
  await group.getByRole('combobox', byName('Tool calls')).selectOption({ label: choice });
}

/** A 127.0.0.1 port nothing listens on. */
async function closedPort() {
  const s = net.createServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

function toolResults(body) {
  return Object.fromEntries(body.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]));
}

test('an MCP tool round trip: Settings lists the tools with switches, the model calls them, the real server answers; the token goes only to it', async (t) => {
  const mcp = await startMcp({ token: TOKEN });
  t.after(() => mcp.stop());
  await e2e.open(t, async ({ page }) => {
    await agentOn(page);
    let dialog = await openSettings(page);
    // At the root of its host Satori's origin is its own: no shared-origin warning (the
    // sub-path test sees it).
    assert.equal(await dialog.getByRole('note').isVisible(), false);
    await addServer(dialog, mcp.url, TOKEN);
    const group = server(dialog);
    await group.waitFor();
    await dialog.getByRole('status').filter({ hasText: `${SERVER}: 4 tools listed.` }).waitFor();
    for (const name of ['lookup_order', 'add', 'fail_always', 'slow_echo']) {
      assert.equal(await group.getByRole('checkbox', byName(name)).isChecked(), true, `${name} is on`);
    }
    await group.getByRole('checkbox', byName('slow_echo')).uncheck();
    // These calls are the user's own, with nothing private: no question (see the test of
    // "Allow tool call").
    assert.equal(await group.getByRole('combobox', byName('Tool calls')).inputValue(), 'Ask before each call', 'the default');
    await toolCalls(group, 'Never ask');
    await dialog.getByRole('button', byName('Save')).click();
    await dialog.waitFor({ state: 'hidden' });

    // Stored: the server and its switches in one record, the token in its own.
    const records = await localStorageEntries(page);
    assert.ok(records['satori.mcp'].includes('lookup_order'));
    assert.ok(!records['satori.mcp'].includes(TOKEN), 'the servers record has no token');
    assert.ok(records['satori.mcp_tokens'].includes(TOKEN));
    assert.ok(!records['satori.settings'].includes(TOKEN));

    // Opened again: the same switches; the token is never shown back.
    dialog = await openSettings(page);
    assert.equal(await server(dialog).getByRole('checkbox', byName('slow_echo')).isChecked(), false);
    assert.equal(await server(dialog).getByRole('checkbox', byName('add')).isChecked(), true);
    assert.equal(await dialog.getByLabel('MCP bearer token', { exact: true }).inputValue(), '');
    await dialog.getByRole('button', byName('Cancel')).click();

    e2e.fake.enqueue(
      {
        toolCalls: [
          { id: 'm1', name: 'lookup_order', arguments: '{"order_id":"A-1001"}' },
          { id: 'm2', name: 'add', arguments: '{"a": 2, "b": 40}' },
          { id: 'm3', name: 'fail_always', arguments: '{"reason":"maintenance"}' },
        ],
        argPiece: 4,
      },
      { chunks: ['Order A-1001 totals 128.50 CNY.'] },
    );
    await sendMessage(page, 'What is the total of order A-1001?');
    await poll(async () => e2e.fake.chatRequests().length === 2, { timeout: 20_000, message: 'two requests' });
    await waitIdle(page);
    const [first, second] = e2e.fake.chatRequests().map((r) => r.body);

    // The switched-on tools are offered after the built-in ones; slow_echo is not.
    assert.deepEqual(first.tools.map((x) => x.function.name), [...BUILTIN, 'lookup_order', 'add', 'fail_always']);
    const lookup = first.tools.find((x) => x.function.name === 'lookup_order').function;
    assert.match(lookup.description, /^Look up an order .*\(from the MCP server Satori test tools\)$/);
    assert.deepEqual(lookup.parameters.required, ['order_id']);

    // The real server's answers went back by call id; its tool error is a result, not a crash.
    const results = toolResults(second);
    assert.equal(results.m1, 'Order A-1001: 3 items, total 128.50 CNY, shipped 2026-11-28');
    assert.equal(results.m2, '42');
    assert.match(results.m3, /^Error executing tool fail_always: inventory offline: maintenance$/);
    assert.equal(await textOf(lastAssistant(page)), 'Order A-1001 totals 128.50 CNY.');
    assert.equal(await articles(page, 'tool').count(), 3);
    assert.equal(await alerts(page).count(), 0);

    // The MCP server saw the whole protocol, each request with its token; one session for the run.
    const seen = mcp.log().filter((l) => l.method !== 'OPTIONS');
    const methods = seen.map((l) => l.mcp_method);
    for (const m of ['initialize', 'notifications/initialized', 'tools/list', 'tools/call']) {
      assert.ok(methods.includes(m), `${m} was sent`);
    }
    assert.equal(methods.filter((m) => m === 'tools/call').length, 3);
    assert.ok(seen.every((l) => l.authorization === `Bearer ${TOKEN}`), 'every MCP request carries its token');
    const calls = seen.filter((l) => l.mcp_method === 'tools/call');
    assert.equal(new Set(calls.map((l) => l.session_id)).size, 1, 'the calls share one session');
    assert.ok(calls.every((l) => l.protocol_version === '2025-06-18'), 'the agreed protocol version is sent');
    assert.equal(seen.find((l) => l.mcp_method === 'initialize').protocol_version, null, 'none before it is agreed');

    // The token went nowhere else: not to the model's server, not in any request body.
    for (const r of e2e.fake.requests) {
      assert.ok(!JSON.stringify(r.headers).includes(TOKEN), 'no MCP token in a request to the model server');
      assert.ok(!JSON.stringify(r.body ?? '').includes(TOKEN));
    }
    assert.ok(e2e.fake.chatRequests().every((r) => r.headers.authorization === `Bearer ${API_KEY}`));

    // Never exported.
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', byName('Export all')).click(),
    ]);
    const text = fs.readFileSync(await file.path(), 'utf8');
    assert.ok(text.includes('Order A-1001: 3 items'), 'the tool results are exported with the chat');
    assert.ok(!text.includes(TOKEN), 'the token is not exported');

    // Saved with the chat and still offered after a reload.
    await reload(page);
    await poll(async () => (await articles(page, 'tool').count()) === 3, { message: 'tool results after reload' });
  });
});

test('MCP failures are clear and never break the chat: unreachable, no CORS, a wrong token, a server gone mid-chat', async (t) => {
  const good = await startMcp({ json: true });
  const noCors = await startMcp({ cors: false });
  const locked = await startMcp({ token: TOKEN });
  t.after(async () => {
    await Promise.all([good.stop(), noCors.stop(), locked.stop()]);
  });
  await e2e.open(t, async ({ page }) => {
    await agentOn(page);
    const dialog = await openSettings(page);
    const error = dialog.getByRole('alert');

    // Nothing listens there.
    const down = `http://127.0.0.1:${await closedPort()}/mcp`;
    await addServer(dialog, down);
    await error.filter({ hasText: `The MCP server was not added: could not reach ${down}` }).waitFor();
    assert.match(await error.innerText(), /not running, the address is wrong, or it does not allow requests from this page \(CORS/);

    // A server that does not allow this page's origin.
    await addServer(dialog, noCors.url);
    await error.filter({ hasText: `could not reach ${noCors.url}` }).waitFor();
    assert.ok(!noCors.log().some((l) => l.method === 'POST' && l.status === 200), 'the browser never read an answer');

    // A token the server does not take (and none at all).
    await addServer(dialog, locked.url, 'wrong-token');
    await error.filter({ hasText: `${locked.url} refused the request (HTTP 401): the bearer token is missing or wrong` }).waitFor();
    await poll(async () => locked.log().some((l) => l.authorization === 'Bearer wrong-token'), { message: 'the wrong token was sent' });
    await addServer(dialog, locked.url, '');
    await poll(async () => locked.log().some((l) => l.method === 'POST' && l.authorization === null), { message: 'a request without a token' });
    await error.filter({ hasText: `${locked.url} refused the request (HTTP 401)` }).waitFor();

    // Not a URL.
    await addServer(dialog, 'localhost:8000/mcp');
    await error.filter({ hasText: 'is not an http:// or https:// URL' }).waitFor();
    assert.equal(await dialog.getByRole('group', { name: /^MCP server / }).count(), 0, 'none was added');

    // Two working ones are added (one answering plain JSON, one with its token), saved; then
    // the first goes away.
    await addServer(dialog, good.url);
    await server(dialog).waitFor();
    await addServer(dialog, locked.url, TOKEN);
    await poll(async () => (await server(dialog).count()) === 2, { message: 'two servers listed' });
    await toolCalls(server(dialog).first(), 'Never ask');
    await dialog.getByRole('button', byName('Save')).click();
    await dialog.waitFor({ state: 'hidden' });
    await good.stop();

    e2e.fake.enqueue(
      { toolCalls: [{ id: 'g1', name: 'lookup_order', arguments: '{"order_id":"B-7"}' }] },
      { chunks: ['The order service is unreachable right now.'] },
    );
    await sendMessage(page, 'Look up order B-7');
    await poll(async () => e2e.fake.chatRequests().length === 2, { timeout: 20_000, message: 'the model was asked again' });
    await waitIdle(page);
    const result = toolResults(e2e.fake.chatRequests()[1].body).g1;
    // The chat keeps the server's name, not its URL (which may hold a secret).
    assert.equal(
      result,
      `Error: could not reach the MCP server ${SERVER}: the server is not running, the address is wrong, or it does not allow requests from this page (CORS: it must allow this page's origin and expose Mcp-Session-Id)`,
    );
    assert.equal(await textOf(lastAssistant(page)), 'The order service is unreachable right now.');
    assert.equal(await alerts(page).count(), 0, 'the chat shows no error');

    assert.deepEqual(e2e.fake.chatRequests()[0].body.tools.map((x) => x.function.name).slice(4, 6), ['lookup_order', 'add']);
    assert.ok(e2e.fake.chatRequests()[0].body.tools.some((x) => x.function.name === 'lookup_order_2'), "the second server's tool, renamed");
    assert.ok((await localStorageEntries(page))['satori.mcp_tokens'].includes(TOKEN));

    // Removing both takes their tools off the next request, and the token with them.
    const again = await openSettings(page);
    await again.getByRole('button', byName(`Remove MCP server ${SERVER}`)).first().click();
    await again.getByRole('button', byName(`Remove MCP server ${SERVER}`)).first().click();
    await poll(async () => (await server(again).count()) === 0, { message: 'both removed' });
    await again.getByRole('button', byName('Save')).click();
    await again.waitFor({ state: 'hidden' });
    e2e.fake.enqueue({ chunks: ['Plain answer.'] });
    await sendMessage(page, 'And now?');
    await poll(async () => e2e.fake.chatRequests().length === 3, { message: 'third request' });
    await waitIdle(page);
    assert.deepEqual(e2e.fake.chatRequests()[2].body.tools.map((x) => x.function.name), BUILTIN);
    const records = await localStorageEntries(page);
    assert.equal(records['satori.mcp_tokens'], undefined, 'the token went with its server');
    assert.ok(!JSON.stringify(records).includes(TOKEN));
  });
});

test('MCP sessions: a server that forgot the session is connected again; Stop ends a slow tool call and keeps what happened', async (t) => {
  let mcp = await startMcp();
  const port = Number(new URL(mcp.url).port);
  t.after(() => mcp.stop());
  await e2e.open(t, async ({ page }) => {
    await agentOn(page);
    const dialog = await openSettings(page);
    await addServer(dialog, mcp.url);
    await server(dialog).waitFor();
    await toolCalls(server(dialog), 'Never ask');
    await dialog.getByRole('button', byName('Save')).click();
    await dialog.waitFor({ state: 'hidden' });

    e2e.fake.enqueue(
      { toolCalls: [{ id: 's1', name: 'add', arguments: '{"a": 1, "b": 2}' }] },
      { chunks: ['Three.'] },
    );
    await sendMessage(page, 'Add 1 and 2');
    await poll(async () => e2e.fake.chatRequests().length === 2, { timeout: 20_000, message: 'two requests' });
    await waitIdle(page);
    assert.equal(toolResults(e2e.fake.chatRequests()[1].body).s1, '3');

    // The server restarts on the same port and knows no session: 404, then a new one.
    await mcp.stop();
    mcp = await startMcp({ port });
    e2e.fake.enqueue(
      { toolCalls: [{ id: 's2', name: 'add', arguments: '{"a": 20, "b": 22}' }] },
      { chunks: ['Forty-two.'] },
    );
    await sendMessage(page, 'Add 20 and 22');
    await poll(async () => e2e.fake.chatRequests().length === 4, { timeout: 20_000, message: 'four requests' });
    await waitIdle(page);
    assert.equal(toolResults(e2e.fake.chatRequests()[3].body).s2, '42');
    const log = mcp.log().filter((l) => l.method === 'POST');
    assert.deepEqual(log.map((l) => [l.mcp_method, l.status]).slice(0, 4), [
      ['tools/call', 404],
      ['initialize', 200],
      ['notifications/initialized', 202],
      ['tools/call', 200],
    ]);

    // A slow call, stopped: nothing more is asked, the run's messages stay, and the call is
    // answered as stopped (every call keeps its one result).
    e2e.fake.enqueue(
      { toolCalls: [{ id: 's3', name: 'slow_echo', arguments: '{"text": "late", "seconds": 20}' }] },
      { chunks: ['never asked'] },
    );
    await sendMessage(page, 'Echo slowly');
    await poll(async () => e2e.fake.chatRequests().length === 5, { message: 'the model asked for the slow call' });
    // The call runs (the tools' status line and Stop show) for 20 s unless stopped.
    await page.getByText('Running the tools the model called…', { exact: true }).first().waitFor();
    await new Promise((r) => setTimeout(r, 1000));
    await page.getByRole('button', byName('Stop')).click();
    await waitIdle(page, { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(e2e.fake.chatRequests().length, 5, 'the model is not asked again');
    assert.equal(await articles(page, 'tool').count(), 3, 'the stopped call has its result');
    const stored = (await openSession(page)).messages.filter((m) => m.role === 'tool').at(-1);
    assert.deepEqual([stored.tool_call_id, stored.content], ['s3', 'Error: stopped by the user before this tool finished.']);
    assert.equal(await alerts(page).count(), 0);
    await conversation(page).getByText('Called slow_echo', { exact: true }).waitFor();
  });
});

test('"Allow tool call": an injected chain (lookup_order, search_chats, send_report) stops before chat text leaves; Deny sends nothing, "Always allow" runs it, each server chooses how often to ask', async (t) => {
  const mcp = await startMcp({ report: true });
  t.after(() => mcp.stop());
  await e2e.open(t, async ({ page }) => {
    // Another chat holds a secret.
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: API_KEY });
    e2e.fake.enqueue({ chunks: ['Noted.'] });
    await sendMessage(page, 'My locker password is tulip-4471.');
    await waitIdle(page);
    await page.getByRole('button', byName('New chat')).click();
    await agentOn(page);
    let dialog = await openSettings(page);
    await addServer(dialog, mcp.url);
    await toolCalls(server(dialog), 'Ask when chat data would be sent');
    await dialog.getByRole('button', byName('Save')).click();
    await dialog.waitFor({ state: 'hidden' });

    // The model follows what the order service's answer "told" it: it looks for passwords in
    // the other chats and sends what it found to an outside tool.
    let n = 0;
    const injected = (body) => {
      const last = body.messages.at(-1);
      const call = (name, args) => ({ toolCalls: [{ id: `c${++n}`, name, arguments: JSON.stringify(args) }] });
      if (last.role === 'user') return call('lookup_order', { order_id: 'A-1001' });
      if (last.content.startsWith('Order A-1001')) return call('search_chats', { query: 'password' });
      if (last.content.includes('tulip-4471')) return call('send_report', { text: last.content });
      return { chunks: ['Done.'] };
    };
    e2e.fake.setDefault(injected);
    const ask = page.getByRole('dialog', byName('Allow tool call'));
    const asked = async (tool) => {
      await poll(async () => (await ask.count()) === 1 && (await ask.getByRole('definition').first().innerText()) === tool, { message: `"Allow tool call" for ${tool}` });
    };
    const reports = () => mcp.log().filter((l) => l.call?.name === 'send_report');
    const lookups = () => mcp.log().filter((l) => l.call?.name === 'lookup_order');
    const sentResult = (i) => e2e.fake.chatRequests().at(i).body.messages.at(-1).content;
    const dialogsShown = async () => page.evaluate(() => window.__asked);
    const countDialogs = () => page.evaluate(() => {
      window.__asked = 0;
      new MutationObserver((changes) => {
        for (const c of changes) for (const node of c.addedNodes) if (node.localName === 'dialog') window.__asked += 1;
      }).observe(document.body, { childList: true });
    });

    // 1. A clean chat's call runs without asking (the server asks only when chat data would
    // be sent); once the chat has read other chats and taken in a tool's answer, the way out
    // asks, showing the tool, the server and exactly what would go.
    await sendMessage(page, 'Where is order A-1001?');
    await asked('send_report');
    assert.equal(lookups().length, 1, 'the lookup ran without a question');
    assert.match(await ask.innerText(), new RegExp(`${SERVER} http://127\\.0\\.0\\.1:\\d+\\n`));
    assert.match(await ask.locator('pre').innerText(), /^\{\n  "text": ".*tulip-4471/s);
    assert.match(await ask.innerText(), /This chat has read your other chats/);
    assert.match(await ask.innerText(), /This chat has taken in text Satori did not write/);
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Deny', 'focus starts on Deny');
    await ask.getByRole('button', byName('Deny')).click();
    await waitIdle(page);
    assert.equal(await ask.count(), 0);
    assert.deepEqual(reports(), [], 'nothing reached the server');
    assert.equal(sentResult(-1), 'Error: the user denied this call, so it did not run. Do not call it again unless the user asks.');
    assert.equal(await textOf(lastAssistant(page)), 'Done.');

    // 2. The chat now holds the tool's answer: the lookup asks too. By keyboard, "Always allow
    // this tool" for it; then for the report, which runs and is kept for the server.
    await sendMessage(page, 'Try again.');
    await asked('lookup_order');
    assert.match(await ask.innerText(), /This chat has taken in text Satori did not write/);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await asked('send_report');
    await ask.getByRole('button', byName('Always allow this tool')).click();
    await waitIdle(page);
    assert.equal(reports().length, 1);
    assert.match(reports()[0].call.arguments.text, /tulip-4471/);
    assert.match(sentResult(-1), /^Report sent \(\d+ characters\)\.$/);
    const stored = JSON.parse((await localStorageEntries(page))['satori.mcp']).servers[0];
    assert.deepEqual([stored.trust, stored.allowed], ['ask_with_data', ['lookup_order', 'send_report']]);

    // 3. Always allowed: no question.
    await countDialogs();
    await sendMessage(page, 'Once more.');
    await poll(async () => reports().length === 2, { timeout: 20_000, message: 'the report sent without a question' });
    await waitIdle(page);
    assert.equal(await dialogsShown(), 0);

    // 4. Revoked in Settings, and back to the default, in a new chat: every call asks, a clean
    // one too; Esc is Deny (and answers only the question: the run goes on).
    dialog = await openSettings(page);
    for (const tool of ['lookup_order', 'send_report']) {
      const always = server(dialog).getByRole('checkbox', byName(`Always allow ${tool}`));
      assert.equal(await always.isChecked(), true);
      await always.uncheck();
    }
    await toolCalls(server(dialog), 'Ask before each call');
    await dialog.getByRole('button', byName('Save')).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', byName('New chat')).click();
    await agentOn(page);
    e2e.fake.setDefault(injected);
    await sendMessage(page, 'And the next order?');
    await asked('lookup_order');
    assert.match(await ask.innerText(), /This server's calls ask first/);
    assert.equal(lookups().length, 3, 'not yet');
    await ask.getByRole('button', byName('Allow once')).click();
    await poll(async () => lookups().length === 4, { message: 'allowed once' });
    await asked('send_report');
    await page.keyboard.press('Escape');
    await waitIdle(page);
    assert.equal(reports().length, 2, 'Esc denied it');
    assert.match(sentResult(-1), /^Error: the user denied this call/);
    assert.equal(await textOf(lastAssistant(page)), 'Done.');

    // 5. "Never ask": the user's choice, every call runs.
    dialog = await openSettings(page);
    assert.equal(await server(dialog).getByRole('checkbox', byName('Always allow send_report')).isChecked(), false);
    await toolCalls(server(dialog), 'Never ask');
    await dialog.getByRole('button', byName('Save')).click();
    await dialog.waitFor({ state: 'hidden' });
    await countDialogs();
    await sendMessage(page, 'Last one.');
    await poll(async () => reports().length === 3, { timeout: 20_000, message: 'the report sent' });
    await waitIdle(page);
    assert.equal(await dialogsShown(), 0);
    assert.equal(JSON.parse((await localStorageEntries(page))['satori.mcp']).servers[0].trust, 'never');

    // 6. A server removed in Settings gets no call, even one offered with the request.
    const before = mcp.log().length;
    let removed;
    const settingsSaved = new Promise((resolve) => { removed = resolve; });
    e2e.fake.setDefault(async (body) => {
      if (body.messages.at(-1).role !== 'user') return { chunks: ['Gone.'] };
      // The request went out with the server's tools; the reply comes once it is removed.
      await settingsSaved;
      return { toolCalls: [{ id: 'gone', name: 'lookup_order', arguments: '{"order_id":"A-1"}' }] };
    });
    const asking = e2e.fake.chatRequests().length;
    await sendMessage(page, 'Is it there?');
    await poll(async () => e2e.fake.chatRequests().length > asking, { message: 'the request with the tools' });
    assert.ok(e2e.fake.chatRequests().at(-1).body.tools.some((x) => x.function.name === 'lookup_order'));
    dialog = await openSettings(page);
    await dialog.getByRole('button', byName(`Remove MCP server ${SERVER}`)).click();
    await dialog.getByRole('button', byName('Save')).click();
    await dialog.waitFor({ state: 'hidden' });
    removed();
    await poll(async () => (await textOf(lastAssistant(page))) === 'Gone.', { timeout: 20_000, message: 'the answer after the refused call' });
    await waitIdle(page);
    assert.equal(sentResult(-1), `Error: the MCP server ${SERVER} was removed in Settings, so this call was not sent.`);
    assert.ok(!mcp.log().slice(before).some((l) => l.mcp_method === 'tools/call'), 'no call reached the removed server');
  });
});
