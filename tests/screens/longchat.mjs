// Screenshots of a long chat for a human to look at (not a test): a chat of 1 000 messages opened
// at its latest message (markdown with entities: the markdown module's table), then scrolled to
// its first message after the focus was on a button far below (the focus moves to the
// conversation), in light and dark, desktop and phone width.
// usage: node tests/screens/longchat.mjs [outdir]
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';

const out = process.argv[2] || 'tests/e2e/artifacts/screens';
mkdirSync(out, { recursive: true });
const web = await startStatic({ root: 'dist', prefix: '/' });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
const N = 1000;
const messages = [];
for (let i = 0; i < N; i++) {
  const content = i % 2 === 0
    ? `Question ${i}: what does &copy; &AElig; &rarr; &frac12; give?`
    : `Answer ${i}: © Æ → ½ — and in code \`&copy;\`:\n\n\`\`\`rust\nfn f${i}() -> u32 { ${i} }\n\`\`\``;
  messages.push({ id: `m${i}`, parent: i ? `m${i - 1}` : undefined, role: i % 2 ? 'assistant' : 'user', content, status: 'complete', created_at: 1764000000000 + i * 1000 });
}
const chat = { v: 1, id: 'long', title: 'A long chat', role: '', created_at: 1764000000000, updated_at: 1764000000000 + N * 1000, messages, leaf: `m${N - 1}` };
const index = { v: 1, sessions: [{ id: 'long', title: chat.title, updated_at: chat.updated_at }], active: 'long' };
try {
  for (const scheme of ['light', 'dark']) {
    for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 800 }]]) {
      const ctx = await browser.newContext({ colorScheme: scheme, viewport });
      const page = await ctx.newPage();
      await page.goto(web.url);
      await page.evaluate(([c, i]) => { localStorage.setItem('satori.session.long', c); localStorage.setItem('satori.index', i); }, [JSON.stringify(chat), JSON.stringify(index)]);
      await page.reload();
      const log = page.getByRole('log', { name: 'Conversation' });
      await log.locator('article .code-block').first().waitFor();
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${out}/${scheme}-${label}-longchat.png` });
      await log.locator('article[data-role="user"]').last().getByRole('button', { name: 'Edit' }).focus();
      await log.evaluate((l) => { l.scrollTop = 0; });
      await page.waitForTimeout(500);
      await page.screenshot({ path: `${out}/${scheme}-${label}-longchat-top.png` });
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  await web.close();
}
