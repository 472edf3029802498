// Screenshots of the everyday screens (not a test): a new chat (its welcome), a chat with
// replies (their lines), the chat list by date with a row's menu open, "Model for this chat" and
// the command palette, in light and dark, desktop and phone width.
// usage: node tests/screens/face.mjs [outdir]
import { configure } from '../e2e/support/browser.mjs';
import { stage } from './stage.mjs';

const { out, web, fake, browser, close } = await stage();
try {
  for (const scheme of ['light', 'dark']) {
    for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 800 }]]) {
      const ctx = await browser.newContext({ colorScheme: scheme, viewport, hasTouch: label === 'phone' });
      const page = await ctx.newPage();
      await page.goto(web.url);
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.waitFor();
      await configure(page, { baseUrl: fake.baseUrl, model: 'fake-small', apiKey: 'sk-demo' });
      await page.screenshot({ path: `${out}/${scheme}-${label}-new.png` });
      for (const q of ['What is the capital of France?', 'And of Japan?']) {
        await box.fill(q);
        await box.press('Enter');
        await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
      }
      await page.screenshot({ path: `${out}/${scheme}-${label}-chat.png` });
      // A reply's actions under the pointer, then "Chat actions" open.
      await page.locator('article[data-role="assistant"]').last().hover();
      await page.screenshot({ path: `${out}/${scheme}-${label}-actions.png` });
      await page.getByRole('button', { name: 'Chat actions' }).click();
      await page.getByRole('menu', { name: 'Chat actions' }).waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-menu.png` });
      await page.keyboard.press('Escape');
      // "Model for this chat".
      await page.getByRole('button', { name: /^Model for this chat/ }).click();
      await page.getByRole('option', { name: /^fake-large/ }).waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-model.png` });
      await page.keyboard.press('Escape');
      await box.waitFor();
      // The command palette, a word typed.
      await page.waitForFunction(() => !document.querySelector('dialog[open]'));
      await box.focus();
      await page.keyboard.press('Control+K');
      await page.getByRole('combobox', { name: 'Search actions and chats' }).fill('ex');
      await page.screenshot({ path: `${out}/${scheme}-${label}-palette.png` });
      await page.keyboard.press('Escape');
      // Older chats, one pinned: the list by date, a row's menu open.
      await page.evaluate(() => {
        const index = JSON.parse(localStorage.getItem('satori.index'));
        const day = 86400000;
        const chats = [['Trip to Kyoto', 1, false], ['Order #4417 refund', 3, true], ['Rust lifetimes', 5, false], ['季度报告', 40, false]];
        chats.forEach(([title, ago, pinned], i) => {
          const at = Date.now() - ago * day;
          const id = `seed${i}`;
          const record = { v: 1, id, title, role: '', created_at: at, updated_at: at, leaf: `${id}-m`, messages: [{ id: `${id}-m`, role: 'user', content: title, status: 'complete', created_at: at }] };
          if (pinned) record.pinned = true;
          localStorage.setItem(`satori.session.${id}`, JSON.stringify(record));
          index.sessions.push({ id, title, updated_at: at, ...(pinned ? { pinned } : {}) });
        });
        index.sessions.sort((a, b) => b.updated_at - a.updated_at);
        localStorage.setItem('satori.index', JSON.stringify(index));
      });
      await page.reload();
      await box.waitFor();
      if (label === 'phone') await page.getByRole('button', { name: 'Chats', exact: true }).click();
      await page.getByRole('button', { name: 'Chat options: Rust lifetimes' }).click();
      await page.getByRole('menu', { name: 'Chat options' }).waitFor();
      await page.waitForTimeout(200);
      await page.screenshot({ path: `${out}/${scheme}-${label}-list.png` });
      await page.keyboard.press('Escape');
      await ctx.close();
    }
  }
} finally {
  await close();
}
