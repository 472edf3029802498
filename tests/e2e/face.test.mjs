// The face of the app: the chat header in one row at phone and desktop width, "Chat actions" by
// keyboard, icons that exist, message actions shown on hover and focus, Settings → Theme, a
// reply's line with its cost, the command palette and the keyboard shortcuts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './support/env.mjs';
import { useApp } from './support/app.mjs';
import { byName, configure, sendMessage, waitIdle, lastAssistant, reload, poll, chatList } from './support/browser.mjs';

const e2e = useApp();

async function setup(page) {
  e2e.fake.reset();
  await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-face' });
}

/** The header's height and the vertical centres of its visible controls. */
async function headerRow(page) {
  return page.evaluate(() => {
    const head = document.querySelector('.chat-head');
    const visible = [...head.querySelectorAll('button, h1')].filter((e) => e.offsetParent !== null);
    return {
      height: head.getBoundingClientRect().height,
      centres: visible.map((e) => { const r = e.getBoundingClientRect(); return Math.round(r.top + r.height / 2); }),
      names: visible.map((e) => e.getAttribute('aria-label') ?? e.textContent.trim()),
    };
  });
}

/**
 * What a part of the page shows: its `::before` text (with no alternative text for a screen
 * reader, `"↑" / ""`, said as nothing) and its own text, without what only a screen reader is given.
 */
function drawn(locator) {
  return locator.evaluate((e) => {
    const before = getComputedStyle(e, '::before').content;
    const shown = /^"([^"]*)" \/ ""$/.exec(before);
    if (before !== 'none' && before !== 'normal' && !shown) throw new Error(`::before says ${before} to a screen reader`);
    return (shown ? shown[1] : '') + [...e.childNodes]
      .filter((n) => !n.classList?.contains('visually-hidden'))
      .map((n) => n.textContent)
      .join('');
  });
}

test('the header is one row at 390 px and at 1280 px, every icon exists, "Chat actions" works by keyboard', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await sendMessage(page, 'A question with a rather long title that will not fit on a phone');
    await waitIdle(page);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      const row = await headerRow(page);
      assert.ok(row.height < 64, `header at ${width} px is ${row.height} px high`);
      assert.ok(row.centres.every((c) => Math.abs(c - row.centres[0]) <= 2), `one row at ${width} px: ${JSON.stringify(row)}`);
      for (const name of ['Context', 'Agent', 'Settings', 'Chat actions']) {
        assert.ok(row.names.includes(name), `${name} in the header at ${width} px (${row.names})`);
      }
    }
    // Every icon the page draws is in its sprite.
    const missing = await page.evaluate(() => [...document.querySelectorAll('use')]
      .map((u) => u.getAttribute('href')).filter((h) => !document.querySelector(`.sprite ${h}`)));
    assert.deepEqual(missing, []);

    // "Chat actions": Enter opens it on its first item; the arrows, Home and End move (wrapping);
    // Esc closes it and gives the focus back.
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent.trim());
    await page.getByRole('button', byName('Chat actions')).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menu', byName('Chat actions')).waitFor();
    // (The browser tells the page a popover opened a moment after it did.)
    await poll(async () => (await focused()) === 'Rename chat', { message: 'the first item focused' });
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(), 'Share chat');
    await page.keyboard.press('End');
    assert.equal(await focused(), 'Delete chat');
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(), 'Rename chat');
    await page.keyboard.press('ArrowUp');
    assert.equal(await focused(), 'Delete chat');
    await page.keyboard.press('Home');
    assert.equal(await focused(), 'Rename chat');
    await page.keyboard.press('Escape');
    await page.getByRole('menu', byName('Chat actions')).waitFor({ state: 'hidden' });
    assert.equal(await focused(), 'Chat actions');
    // Tab out of it closes it too.
    await page.keyboard.press('Enter');
    await poll(async () => (await focused()) === 'Rename chat', { message: 'the first item focused' });
    await page.keyboard.press('End');
    await page.keyboard.press('Tab');
    await page.getByRole('menu', byName('Chat actions')).waitFor({ state: 'hidden' });
    await page.getByRole('button', byName('Chat actions')).focus();
    // Choosing an item closes the menu; the dialog it opens gives the focus back to the button.
    await page.keyboard.press('Enter');
    await poll(async () => (await focused()) === 'Rename chat', { message: 'the first item focused' });
    await page.keyboard.press('Enter');
    const rename = page.getByRole('dialog', byName('Rename chat'));
    await rename.waitFor();
    assert.equal(await page.getByRole('menu', byName('Chat actions')).isVisible(), false);
    await rename.getByRole('button', byName('Cancel')).click();
    await rename.waitFor({ state: 'detached' });
    assert.equal(await focused(), 'Chat actions');
  });
});

test('Esc in "Chat actions" while a reply streams closes the menu and leaves the reply streaming', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    e2e.fake.enqueue({ chunks: Array.from({ length: 40 }, (_, i) => `word${i} `), delayMs: 100 });
    await sendMessage(page, 'Stream slowly');
    await page.locator('article[aria-busy="true"]').waitFor();
    await page.getByRole('button', byName('Chat actions')).click();
    await page.getByRole('menu', byName('Chat actions')).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('menu', byName('Chat actions')).waitFor({ state: 'hidden' });
    assert.equal(await page.locator('article[aria-busy="true"]').count(), 1, 'the reply is still streaming');
    await page.keyboard.press('Escape');
    await waitIdle(page);
    assert.equal(await lastAssistant(page).getAttribute('data-status'), 'stopped', 'a second Esc stops it');
  });
});

test('message actions show on hover and on keyboard focus, and keep their names', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await sendMessage(page, 'Hello');
    await waitIdle(page);
    const actions = lastAssistant(page).locator('.msg-actions');
    // With reduced motion there is no fade to wait for.
    const opacity = () => actions.evaluate((e) => getComputedStyle(e).opacity);
    await page.mouse.move(0, 0);
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    assert.equal(await opacity(), '0', 'hidden while nothing is over the reply');
    await lastAssistant(page).hover();
    assert.equal(await opacity(), '1', 'shown on hover');
    await page.mouse.move(0, 0);
    await lastAssistant(page).getByRole('button', byName('Copy')).focus();
    assert.equal(await opacity(), '1', 'shown on keyboard focus');
    for (const name of ['Copy', 'Regenerate', 'Pin', 'Exclude']) {
      await lastAssistant(page).getByRole('button', byName(name)).waitFor({ state: 'attached' });
    }
    assert.equal(await actions.evaluate((e) => getComputedStyle(e).transitionDuration), '0s', 'no fade with reduced motion');
  }, { contextOptions: { reducedMotion: 'reduce' } });
});

test('Settings → Theme: dark on a light system, remembered across a reload, and back to the system', async (t) => {
  await e2e.open(t, async ({ page }) => {
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await background();
    await page.getByRole('button', byName('Settings')).first().click();
    const dialog = page.getByRole('dialog', byName('Settings'));
    await dialog.getByRole('combobox', byName('Theme')).selectOption({ label: 'Dark' });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    const dark = await background();
    assert.notEqual(dark, light, 'the page turned dark at once');
    await dialog.getByRole('button', byName('Cancel')).click();
    await reload(page);
    assert.equal(await background(), dark, 'still dark after a reload');
    await page.getByRole('button', byName('Settings')).first().click();
    assert.equal(await dialog.getByRole('combobox', byName('Theme')).inputValue(), 'dark');
    await dialog.getByRole('combobox', byName('Theme')).selectOption({ label: 'System' });
    assert.equal(await background(), light);
    assert.equal(await page.evaluate(() => localStorage.getItem('satori.theme')), null);
  }, { contextOptions: { colorScheme: 'light' } });
});

test('a reply\'s line: its model, time, tokens in and out, and the cost from the price table only for a model with a price', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, {
      baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-face', priceIn: '2', priceOut: '10', currency: 'usd',
    });
    const line = async () => {
      const meta = (await lastAssistant(page)).locator('.meta');
      return {
        model: await meta.locator('.meta-model').innerText(),
        time: await meta.locator('.meta-time').innerText(),
        input: await drawn(meta.locator('.tokens-in')),
        output: await drawn(meta.locator('.tokens')),
        said: [await meta.locator('.tokens-in .visually-hidden').textContent(), await meta.locator('.tokens .visually-hidden').textContent()],
        cost: (await meta.locator('.cost').count()) ? await meta.locator('.cost').innerText() : null,
      };
    };
    // The server's counts: exact, and the cost is theirs times the price: (1000·2 + 500·10) / 10⁶.
    e2e.fake.enqueue({ chunks: ['Counted.'], usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 } });
    await sendMessage(page, 'What does this cost?');
    await waitIdle(page);
    const counted = await line();
    assert.equal(counted.model, 'fake-small');
    assert.match(counted.time, /^\d{1,2}:\d{2}( [AP]M)?$/, 'the time of day, today');
    assert.equal(counted.input, '↑1,000');
    assert.equal(counted.output, '↓500');
    assert.equal(counted.cost, '$0.007');
    // A screen reader hears the arrows in words.
    assert.deepEqual(counted.said, [
      "Tokens sent, counted by the server or the model's tokenizer ",
      "Tokens written, counted by the server or the model's tokenizer ",
    ]);
    // No usage from the server: Satori's own counts, marked as estimates, and so is the cost.
    await sendMessage(page, 'And without usage?');
    await waitIdle(page);
    const estimated = await line();
    assert.match(estimated.input, /^↑≈\d+$/);
    assert.match(estimated.output, /^↓≈\d+$/);
    assert.deepEqual(estimated.said, ['Tokens sent, estimated ', 'Tokens written, estimated ']);
    const [, sent] = estimated.input.match(/≈(\d+)/);
    const [, written] = estimated.output.match(/≈(\d+)/);
    const want = (Number(sent) * 2 + Number(written) * 10) / 1e6;
    assert.equal(estimated.cost, `≈$${Number(want.toPrecision(2))}`);
    // A model without a price: tokens, but no cost; the earlier replies keep theirs.
    await configure(page, { model: 'fake-large', provider: null });
    await sendMessage(page, 'And a model with no price?');
    await waitIdle(page);
    const unknown = await line();
    assert.equal(unknown.model, 'fake-large');
    assert.equal(unknown.cost, null);
    assert.equal(await page.locator('.msg[data-role="assistant"] .cost').count(), 2);
    // The price is kept for its model: back on fake-small, the fields show it again.
    await page.getByRole('button', byName('Settings')).first().click();
    const dialog = page.getByRole('dialog', byName('Settings'));
    await dialog.getByLabel('Model', { exact: true }).fill('fake-small');
    assert.equal(await dialog.getByLabel('Input price per 1M tokens').inputValue(), '2');
    assert.equal(await dialog.getByLabel('Currency').inputValue(), 'USD');
    // One price alone is refused, with a reason.
    await dialog.getByLabel('Output price per 1M tokens').fill('');
    await dialog.getByRole('button', byName('Save')).click();
    await dialog.getByText('Enter both prices of the model').waitFor();
  });
});

test('the keyboard: Ctrl+K finds a chat by a word and opens it, and runs actions; Ctrl+Shift+O, Ctrl+/ and ↑ work; none fires while an input method composes', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const box = page.getByRole('textbox', byName('Message'));
    await sendMessage(page, 'Planning a trip to Kraków in May');
    await waitIdle(page);
    // Ctrl+Shift+O: a new chat.
    await box.focus();
    await page.keyboard.press('Control+Shift+O');
    await poll(async () => (await page.locator('.msg[data-role="user"]').count()) === 0, { message: 'a new, empty chat' });
    await sendMessage(page, 'Something else entirely');
    await waitIdle(page);
    assert.equal((await chatList(page)).length, 2);

    // A dialog's closing hides it at once and ends it a moment later, giving the focus back
    // (here to the message box): keys wait for that, as a person's would.
    // (By its id: its name changes with the language.)
    const back = () => poll(() => page.evaluate(() => document.activeElement?.id === 'composer-input'), { message: 'the focus back in the message box' });
    // Ctrl+K: "Command palette"; a word of a title (accents ignored) finds the chat; Enter opens it.
    await box.focus();
    await page.keyboard.press('Control+K');
    const palette = page.getByRole('dialog', byName('Command palette'));
    await palette.waitFor();
    const search = palette.getByRole('combobox', byName('Search actions and chats'));
    assert.ok(await search.evaluate((el) => el === document.activeElement), 'the search box has the focus');
    await search.fill('krakow');
    const options = palette.getByRole('option');
    assert.deepEqual(await options.allInnerTexts(), ['Planning a trip to Kraków in May']);
    await page.keyboard.press('Enter');
    await palette.waitFor({ state: 'detached' });
    await poll(async () => (await page.locator('.msg[data-role="user"]').first().innerText()).includes('Kraków'), { message: 'the chat opened' });
    await back();
    // An action: what its control does ("Settings" opens Settings).
    await page.keyboard.press('Control+K');
    await palette.waitFor();
    await search.fill('settings');
    await page.keyboard.press('Enter');
    const settings = page.getByRole('dialog', byName('Settings'));
    await settings.waitFor();
    await settings.getByRole('button', byName('Cancel')).click();
    await settings.waitFor({ state: 'detached' });
    await back();
    // Esc closes the palette, and a shortcut pressed straight after it works (nothing waits
    // for the dialog to be gone); the arrows move through the list.
    await page.keyboard.press('Control+K');
    await palette.waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+/');
    await page.getByRole('dialog', byName('Keyboard shortcuts')).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', byName('Keyboard shortcuts')).waitFor({ state: 'detached' });
    await back();
    await page.keyboard.press('Control+K');
    await search.fill('theme');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.locator('#' + await search.getAttribute('aria-activedescendant')).innerText(), 'Theme: Light');
    await page.keyboard.press('Enter');
    await palette.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
    await back();

    // Every control the palette's actions click is on the page.
    const source = fs.readFileSync(path.join(repoRoot, 'crates', 'core', 'src', 'palette.rs'), 'utf8');
    const selectors = [...source.matchAll(/Do::Click\("([^"]+)"\)/g)].map((m) => m[1]);
    assert.ok(selectors.length >= 10, `${selectors.length} actions click a control`);
    const missing = await page.evaluate((all) => all.filter((s) => !document.querySelector(s)), selectors);
    assert.deepEqual(missing, [], 'controls the palette cannot find');

    // Ctrl+/: "Keyboard shortcuts", closed by Esc.
    await page.keyboard.press('Control+/');
    const help = page.getByRole('dialog', byName('Keyboard shortcuts'));
    await help.waitFor();
    assert.ok((await help.innerText()).includes('Command palette'));
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    await back();

    // ↑ in the empty message box: the last question, open for editing, its text focused.
    await page.keyboard.press('ArrowUp');
    const edit = page.getByRole('textbox', byName('Edit message'));
    await edit.waitFor();
    await poll(() => edit.evaluate((el) => el === document.activeElement), { message: 'the edit box focused' });
    assert.equal(await edit.inputValue(), 'Planning a trip to Kraków in May');
    await page.getByRole('button', byName('Cancel')).click();

    // While an input method composes (and Safari's key code 229 after it): nothing fires.
    await box.fill('');
    const keys = [
      { key: 'k', ctrlKey: true }, { key: 'k', metaKey: true }, { key: '/', ctrlKey: true },
      { key: 'O', ctrlKey: true, shiftKey: true }, { key: 'ArrowUp' },
    ];
    for (const key of keys) {
      for (const ime of [{ isComposing: true }, { keyCode: 229 }]) {
        const taken = await box.evaluate((el, init) => !el.dispatchEvent(new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init })), { ...key, ...ime });
        assert.equal(taken, false, `${JSON.stringify({ ...key, ...ime })} left alone`);
      }
    }
    await page.waitForTimeout(300); // time for a wrongly opened dialog to show
    assert.equal(await page.getByRole('dialog').count(), 0, 'no dialog opened');
    assert.equal(await page.getByRole('textbox', byName('Edit message')).count(), 0, 'nothing opened for editing');
    assert.equal((await chatList(page)).length, 2, 'no new chat');

    // A layout without Latin letters (Russian: "л" on the K key): the physical key counts.
    const ru = await box.evaluate((el) => !el.dispatchEvent(new KeyboardEvent('keydown', { key: 'л', code: 'KeyK', ctrlKey: true, bubbles: true, cancelable: true })));
    assert.equal(ru, true, 'Ctrl+K on a Russian layout taken');
    await palette.waitFor();
    // In Chinese, actions are found by the names shown: "简体中文" switches, "设置" is Settings.
    await search.fill('简体中文');
    await page.keyboard.press('Enter');
    await palette.waitFor({ state: 'detached' });
    await poll(async () => (await page.evaluate(() => document.documentElement.lang)) === 'zh-CN', { message: 'the page in Chinese' });
    await back();
    await page.keyboard.press('Control+K');
    const 命令面板 = page.getByRole('dialog', byName('命令面板'));
    await 命令面板.waitFor();
    await 命令面板.getByRole('combobox').fill('设置');
    await poll(async () => (await 命令面板.getByRole('option').allInnerTexts()).join('|') === '设置', { message: '"设置" finds Settings alone' });
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', byName('设置')).waitFor();
  });
});

test('a keyboard-only walk: the header, the chat list, a message\'s actions and the palette', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await sendMessage(page, 'The first chat');
    await waitIdle(page);
    await page.locator('button.new-chat').click();
    await sendMessage(page, 'The second chat');
    await waitIdle(page);
    // Tab (or Shift+Tab) until `target` has the focus, as a person would: at most 60 presses.
    const tabTo = async (target, key = 'Tab') => {
      await target.waitFor({ state: 'attached' });
      for (let i = 0; i < 60; i++) {
        if (await target.evaluate((el) => el === document.activeElement)) return;
        await page.keyboard.press(key);
      }
      assert.fail(`${key} never reached ${target}`);
    };
    const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent.trim());
    await page.evaluate(() => document.activeElement?.blur());

    // The header: "Chat actions" by Tab, opened by Enter, closed by Esc back onto the button.
    const actions = page.getByRole('button', byName('Chat actions'));
    await tabTo(actions);
    await page.keyboard.press('Enter');
    await poll(async () => (await focusedName()) === 'Rename chat', { message: 'the menu\'s first item focused' });
    await page.keyboard.press('Escape');
    assert.equal(await focusedName(), 'Chat actions');

    // The chat list: the first chat's "Chat options", Pin chat chosen by the arrows; the pinned
    // chat goes on top; Enter on its title opens it (marked as the current one).
    const rowOptions = page.getByRole('button', byName('Chat options: The first chat'));
    await tabTo(rowOptions, 'Shift+Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('menu', byName('Chat options')).waitFor();
    for (let i = 0; i < 6 && (await focusedName()) !== 'Pin chat'; i++) await page.keyboard.press('ArrowDown');
    assert.equal(await focusedName(), 'Pin chat');
    await page.keyboard.press('Enter');
    await poll(async () => (await chatList(page))[0]?.title === 'The first chat', { message: 'the pinned chat on top' });
    const first = page.locator('.chat-link', { hasText: 'The first chat' });
    await tabTo(first, 'Shift+Tab');
    await page.keyboard.press('Enter');
    await poll(async () => (await first.getAttribute('aria-current')) === 'page', { message: 'the first chat open' });

    // A message's actions: Tab to the reply's "Pin", Enter pins it (pressed).
    const pin = lastAssistant(page).getByRole('button', byName('Pin'));
    await tabTo(pin);
    assert.equal(await lastAssistant(page).locator('.msg-actions').evaluate((e) => getComputedStyle(e).opacity), '1', 'shown while focused');
    await page.keyboard.press('Enter');
    await poll(async () => (await lastAssistant(page).getByRole('button', byName('Pin')).getAttribute('aria-pressed')) === 'true', { message: 'the reply pinned' });

    // The palette, from wherever the focus is: "new" and Enter start a new chat.
    await page.keyboard.press('Control+K');
    const palette = page.getByRole('dialog', byName('Command palette'));
    await palette.waitFor();
    await page.keyboard.type('new chat');
    await page.keyboard.press('Enter');
    await palette.waitFor({ state: 'detached' });
    await poll(async () => (await page.locator('.msg[data-role="user"]').count()) === 0, { message: 'a new, empty chat' });
  }, { contextOptions: { reducedMotion: 'reduce' } });
});
