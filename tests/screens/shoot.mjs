// Takes screenshots of the built app for a human to look at (not a test): chat with markdown,
// Settings (with Context and Storage), an error, a stopped reply, a pin, the context inspector,
// Export chat and Import chats, in light and dark, desktop and phone width.
// usage: node tests/screens/shoot.mjs [outdir]
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { startFakeLlm } from '../e2e/support/fake-llm.mjs';

const out = process.argv[2] || 'tests/e2e/artifacts/screens';
mkdirSync(out, { recursive: true });
const web = await startStatic({ root: 'dist', prefix: '/' });
const fake = await startFakeLlm();
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const REPLY = ['Here is a **plan**:\n\n', '1. Mix flour and water\n2. Rest 30 min\n\n', '```python\nprint("bread")\n```\n\n',
  '| step | minutes |\n|---|---|\n| knead | 10 |\n| bake | 35 |\n\n', 'Image: ![oven](https://example.test/oven.png) and <script>alert(1)</script>'];
try {
  for (const scheme of ['light', 'dark']) {
    for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 800 }]]) {
      const ctx = await browser.newContext({ colorScheme: scheme, viewport });
      const page = await ctx.newPage();
      await page.goto(web.url);
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.waitFor();
      // Settings
      await page.getByRole('button', { name: 'Settings' }).first().click();
      const dlg = page.getByRole('dialog', { name: 'Settings' });
      await dlg.getByLabel('Provider').selectOption({ label: 'Custom' });
      await dlg.getByLabel('API base URL').fill(fake.baseUrl);
      await dlg.getByLabel('API key').fill('sk-demo');
      await dlg.getByLabel('Model', { exact: true }).fill('fake-small');
      await page.screenshot({ path: `${out}/${scheme}-${label}-settings.png` });
      await dlg.getByRole('button', { name: 'Save' }).click();
      // Settings again: a hand-typed URL empties the key field; a key for plain http is flagged.
      await page.getByRole('button', { name: 'Settings' }).first().click();
      await dlg.getByLabel('API base URL').fill('http://api.example.test/v1');
      await page.screenshot({ path: `${out}/${scheme}-${label}-settings-key-emptied.png` });
      await dlg.getByLabel('API key').fill('sk-other');
      await page.screenshot({ path: `${out}/${scheme}-${label}-settings-plain-http.png` });
      await dlg.getByRole('button', { name: 'Cancel' }).click();
      // A complete reply with markdown and reasoning
      fake.enqueue({ reasoning: ['The user wants ', 'bread.'], chunks: REPLY, delayMs: 20 });
      await box.fill('How do I bake bread?');
      await box.press('Enter');
      await page.getByRole('button', { name: 'Send' }).waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-chat.png` });
      // A stopped reply
      fake.enqueue({ chunks: Array.from({ length: 30 }, (_, i) => `word${i} `), delayMs: 150 });
      await box.fill('Tell me a long story');
      await box.press('Enter');
      await page.waitForTimeout(900);
      await page.getByRole('button', { name: 'Stop' }).click();
      await page.getByRole('button', { name: 'Send' }).waitFor();
      // An error
      fake.enqueue({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
      await box.fill('One more?');
      await box.press('Enter');
      await page.getByRole('alert').waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-stopped-and-error.png` });
      await page.getByRole('button', { name: 'Dismiss' }).click();
      // A pinned message and the context inspector
      await page.getByRole('button', { name: 'Pin' }).first().click();
      await page.getByRole('button', { name: 'Context', exact: true }).click();
      const region = page.getByRole('region', { name: 'Context inspector' });
      await region.locator('.ctx-total').waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-inspector.png` });
      await region.locator('.ctx-table').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${out}/${scheme}-${label}-inspector-table.png` });
      await page.getByRole('button', { name: 'Context', exact: true }).click();
      // The Context part of Settings
      await page.getByRole('button', { name: 'Settings' }).first().click();
      await dlg.getByLabel('Context window').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${out}/${scheme}-${label}-settings-context.png` });
      // The Storage part of Settings
      await dlg.getByRole('group', { name: 'Storage' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${out}/${scheme}-${label}-settings-storage.png` });
      await dlg.getByRole('button', { name: 'Cancel' }).click();
      // Export chat
      await page.getByRole('button', { name: 'Chat actions' }).click();
      await page.getByRole('menuitem', { name: 'Export chat' }).click();
      const exp = page.getByRole('dialog', { name: 'Export chat' });
      await exp.waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-export.png` });
      await exp.getByRole('button', { name: 'Cancel' }).click();
      // Import: a refused file, then a preview and the report
      if (label === 'phone') await page.getByRole('button', { name: 'Chats' }).click();
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const imp = page.getByRole('dialog', { name: 'Import chats' });
      await imp.getByLabel('Import file').setInputFiles('tests/fixtures/import/unknown-role.json');
      await imp.getByRole('alert').filter({ hasText: /cannot be imported/ }).waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-import-refused.png` });
      await imp.getByLabel('Import file').setInputFiles('tests/fixtures/import/valid.json');
      await imp.getByRole('button', { name: 'Import 2 chats' }).waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-import-preview.png` });
      await imp.getByRole('button', { name: 'Import 2 chats' }).click();
      await imp.getByRole('button', { name: 'Undo import' }).waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-import-done.png` });
      await imp.getByRole('button', { name: 'Close' }).click();
      // Search chats: hits marked (on a phone the chat list is still open)
      await page.getByRole('button', { name: 'Search chats', exact: true }).click();
      const find = page.getByRole('dialog', { name: 'Search chats' });
      await find.getByRole('searchbox', { name: 'Search chats' }).fill('bread');
      await find.getByRole('status').waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-search.png` });
      await find.getByRole('button', { name: 'Close' }).click();
      // A long chat scrolled up: only the messages near the view are drawn; "Jump to latest".
      await page.evaluate(() => {
        const messages = [];
        for (let i = 0; i < 600; i++) {
          const text = i % 2 ? `Answer ${i}: here is \`code ${i}\` and **bold** text that wraps over a line or two on a phone.` : `Question ${i}?`;
          messages.push({ id: `s${i}`, role: i % 2 ? 'assistant' : 'user', content: text, status: 'complete', created_at: 1764000000000 + i, ...(i ? { parent: `s${i - 1}` } : {}) });
        }
        localStorage.setItem('satori.session.shots', JSON.stringify({ v: 1, id: 'shots', title: 'Six hundred messages', role: '', created_at: 1764000000000, updated_at: Date.now(), messages, leaf: 's599' }));
        const index = JSON.parse(localStorage.getItem('satori.index'));
        index.sessions.unshift({ id: 'shots', title: 'Six hundred messages', updated_at: Date.now() });
        index.active = 'shots';
        localStorage.setItem('satori.index', JSON.stringify(index));
      });
      await page.reload();
      const log = page.getByRole('log', { name: 'Conversation' });
      await log.locator('article[data-message="s599"]').waitFor();
      await log.evaluate((el) => { el.scrollTop = el.scrollHeight / 2; });
      await page.getByRole('button', { name: 'Jump to latest' }).waitFor();
      await page.waitForTimeout(200);
      await page.screenshot({ path: `${out}/${scheme}-${label}-long-chat.png` });
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  await fake.close();
  await web.close();
}
console.log(`screenshots in ${out}`);
