// The face of the app: the chat header in one row at phone and desktop width, "Chat actions" by
// keyboard, icons that exist, message actions shown on hover and focus, and Settings → Theme.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './support/app.mjs';
import { byName, configure, sendMessage, waitIdle, lastAssistant, reload, poll } from './support/browser.mjs';

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
