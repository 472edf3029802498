// The chat list and the model of a chat: pinned chats on top, the others by date; each row's
// "Chat options" by keyboard; a pin kept after a reload; a long list drawn near the view only;
// "Model for this chat" switches one chat's model, its next request uses it, another chat keeps
// its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './support/app.mjs';
import { byName, configure, sendMessage, waitIdle, reload, poll, chatsNav, chatEntry, storedChat } from './support/browser.mjs';

const e2e = useApp();

/** The list as drawn: `[Heading]` and chat titles (`*` after the open one), in order. */
async function drawnList(page) {
  return chatsNav(page).evaluate((nav) => [...nav.querySelectorAll('.chat-list li')].map((li) => {
    const h = li.querySelector('h2');
    if (h) return `[${h.textContent}]`;
    const link = li.querySelector('.chat-link');
    return link.textContent + (link.getAttribute('aria-current') === 'page' ? '*' : '');
  }));
}

/**
 * Seeds chats `{ id, title, daysAgo, pinned }` (changed at noon, local time, that many days ago)
 * and opens the app on the first.
 */
async function seed(page, chats) {
  await page.evaluate((chats) => {
    const noon = (days) => { const d = new Date(); d.setHours(12, 0, 0, 0); d.setDate(d.getDate() - days); return d.getTime(); };
    const sessions = [];
    for (const c of chats) {
      const at = noon(c.daysAgo);
      const record = { v: 1, id: c.id, title: c.title, role: '', created_at: at, updated_at: at, leaf: `${c.id}-m`, messages: [{ id: `${c.id}-m`, role: 'user', content: `About ${c.title}`, status: 'complete', created_at: at }] };
      if (c.pinned) record.pinned = true;
      localStorage.setItem(`satori.session.${c.id}`, JSON.stringify(record));
      sessions.push({ id: c.id, title: c.title, updated_at: at, ...(c.pinned ? { pinned: true } : {}) });
    }
    sessions.sort((a, b) => b.updated_at - a.updated_at);
    localStorage.setItem('satori.index', JSON.stringify({ v: 1, sessions, active: chats[0].id }));
  }, chats);
  await reload(page);
}

const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent.trim());

test('the chat list: by date, pinned on top after a reload, each row\'s "Chat options" by keyboard, the open chat marked', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-list' });
    await seed(page, [
      { id: 'today', title: 'Planning the trip', daysAgo: 0 },
      { id: 'yest', title: 'Order #4417', daysAgo: 1 },
      { id: 'week', title: 'Rust lifetimes', daysAgo: 3 },
      { id: 'old', title: '季度报告', daysAgo: 30 },
      { id: 'older', title: 'Tax return', daysAgo: 90 },
    ]);
    await poll(async () => (await drawnList(page)).length === 9, { message: 'the list drawn' });
    assert.deepEqual(await drawnList(page), [
      '[Today]', 'Planning the trip*', '[Yesterday]', 'Order #4417', '[Previous 7 days]', 'Rust lifetimes', '[Older]', '季度报告', 'Tax return',
    ]);

    // A row's "Chat options", by keyboard: named with its chat; Enter opens the menu on its first
    // item; "Pin chat" (not "Unpin chat") is there.
    const options = page.getByRole('button', byName('Chat options: 季度报告'));
    await options.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu', byName('Chat options'));
    await menu.waitFor();
    await poll(async () => (await focused(page)) === 'Rename chat', { message: 'the first item focused' });
    assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), ['Rename chat', 'Pin chat', 'Export chat', 'Delete chat']);
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(page), 'Pin chat');
    await page.keyboard.press('Enter');
    await menu.waitFor({ state: 'hidden' });
    await poll(async () => (await drawnList(page))[0] === '[Pinned]', { message: 'a "Pinned" group' });
    assert.deepEqual((await drawnList(page)).slice(0, 3), ['[Pinned]', '季度报告', '[Today]']);
    // Pinning changes neither the chat open nor when the chat changed.
    assert.equal((await storedChat(page, 'old')).pinned, true);
    assert.equal((await storedChat(page, 'today')).pinned, undefined);

    // Kept after a reload.
    await reload(page);
    await poll(async () => (await drawnList(page)).length === 10, { message: 'the list drawn' });
    assert.deepEqual(await drawnList(page), [
      '[Pinned]', '季度报告', '[Today]', 'Planning the trip*', '[Yesterday]', 'Order #4417', '[Previous 7 days]', 'Rust lifetimes', '[Older]', 'Tax return',
    ]);

    // Unpin, from the menu of a chat that is not open, by pointer this time.
    await page.getByRole('button', byName('Chat options: 季度报告')).click();
    await menu.waitFor();
    assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), ['Rename chat', 'Unpin chat', 'Export chat', 'Delete chat']);
    await menu.getByRole('menuitem', byName('Unpin chat')).click();
    await poll(async () => (await drawnList(page))[0] === '[Today]', { message: 'no "Pinned" group' });

    // Rename and delete a chat that is not open: the open one stays as it is.
    await page.getByRole('button', byName('Chat options: Tax return')).click();
    await menu.getByRole('menuitem', byName('Rename chat')).click();
    const rename = page.getByRole('dialog', byName('Rename chat'));
    await rename.getByRole('textbox').fill('Tax return 2025');
    await rename.getByRole('button', byName('Save')).click();
    await chatEntry(page, 'Tax return 2025').waitFor();
    await page.getByRole('button', byName('Chat options: Order #4417')).click();
    await menu.getByRole('menuitem', byName('Delete chat')).click();
    const del = page.getByRole('dialog', byName('Delete chat'));
    await del.getByText('Order #4417').first().waitFor();
    await del.getByRole('button', byName('Delete')).click();
    await poll(async () => !(await drawnList(page)).includes('Order #4417'), { message: 'the chat deleted' });
    assert.equal(await page.evaluate(() => localStorage.getItem('satori.session.yest')), null);
    assert.equal(await page.locator('.chat-title').textContent(), 'Planning the trip');

    // Opening a chat from the list marks it, and only it.
    await chatEntry(page, 'Rust lifetimes').click();
    await poll(async () => (await drawnList(page)).includes('Rust lifetimes*'), { message: 'the open chat marked' });
    assert.equal((await drawnList(page)).filter((x) => x.endsWith('*')).length, 1);
  });
});

test('a long chat list draws only the rows near the view, and every chat can be reached', async (t) => {
  await e2e.open(t, async ({ page }) => {
    const chats = Array.from({ length: 600 }, (_, i) => ({ id: `c${i}`, title: `Chat number ${i}`, daysAgo: Math.floor(i / 20) }));
    await seed(page, chats);
    await poll(async () => (await drawnList(page)).includes('Chat number 0*'), { message: 'the list drawn' });
    const drawn = await chatsNav(page).locator('.chat-list li').count();
    assert.ok(drawn < 200, `${drawn} rows drawn of 600 chats`);
    // Scrolled to its end: the oldest chat is drawn, and opens.
    await chatsNav(page).locator('.chat-scroll').evaluate((div) => { div.scrollTop = div.scrollHeight; });
    await chatEntry(page, 'Chat number 599').waitFor();
    // (All of them in the "Older" group down there.)
    assert.ok(!(await drawnList(page)).includes('[Today]'));
    await chatEntry(page, 'Chat number 599').click();
    await poll(async () => (await page.locator('.chat-title').textContent()) === 'Chat number 599', { message: 'the oldest chat opened' });
    assert.ok((await chatsNav(page).locator('.chat-list li').count()) < 200);
    // And back at the top, the first rows again.
    await chatsNav(page).locator('.chat-scroll').evaluate((div) => { div.scrollTop = 0; });
    await poll(async () => (await drawnList(page))[0] === '[Today]', { message: 'the top drawn again' });
  });
});

test('"Model for this chat" switches one chat\'s model: its next request uses it, another chat keeps its own', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-model' });
    const lastModel = () => e2e.fake.chatRequests().at(-1).body.model;
    const picker = () => page.getByRole('button', { name: /^Model for this chat:/ });
    await sendMessage(page, 'First chat, first question');
    await waitIdle(page);
    assert.equal(lastModel(), 'fake-small');
    assert.equal((await picker().textContent()).trim(), 'Model for this chat:fake-small');

    // The dialog: a combobox over the server's models (listed with the key), the one in use
    // active; the arrows move, Enter chooses.
    await picker().click();
    const dialog = page.getByRole('dialog', byName('Model for this chat'));
    const box = dialog.getByRole('combobox', byName('Model for this chat'));
    await box.waitFor();
    await dialog.getByRole('option', { name: /^fake-large/ }).waitFor();
    const models = e2e.fake.requests.filter((r) => r.path === '/v1/models');
    assert.equal(models.at(-1).headers.authorization, 'Bearer sk-e2e-model');
    const active = () => box.evaluate((b) => document.getElementById(b.getAttribute('aria-activedescendant'))?.textContent);
    assert.match(await active(), /^fake-small/);
    await page.keyboard.press('ArrowDown');
    assert.match(await active(), /^fake-large/);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await picker().textContent()).trim(), 'Model for this chat:fake-large');
    await sendMessage(page, 'First chat, second question');
    await waitIdle(page);
    assert.equal(lastModel(), 'fake-large');

    // Another chat keeps Settings' model.
    await page.getByRole('button', byName('New chat')).click();
    await sendMessage(page, 'Second chat');
    await waitIdle(page);
    assert.equal(lastModel(), 'fake-small');
    assert.equal((await picker().textContent()).trim(), 'Model for this chat:fake-small');

    // Back in the first (after a reload): its own model, stored with the server it was chosen on.
    await reload(page);
    await chatEntry(page, 'First chat, first question').click();
    await poll(async () => (await picker().textContent()).trim() === 'Model for this chat:fake-large', { message: 'the chat\'s model shown' });
    await sendMessage(page, 'First chat, third question');
    await waitIdle(page);
    assert.equal(lastModel(), 'fake-large');
    const first = await storedChat(page);
    assert.deepEqual(first.model, { name: 'fake-large', base_url: e2e.fake.baseUrl });

    // A name the server does not list can be typed; Settings' model makes the chat follow
    // Settings again.
    await picker().click();
    await box.fill('fake-experimental');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    await sendMessage(page, 'First chat, fourth question');
    await waitIdle(page);
    assert.equal(lastModel(), 'fake-experimental');
    await picker().click();
    await dialog.getByRole('option', { name: /^fake-small/ }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await storedChat(page)).model, undefined);
  });
});
