// Screenshots of the prompt features for a human to look at (not a test): the Role select,
// Chat setup, the system prompt, and the Prompts dialog (list, preview, editor, import error).
// usage: node tests/screens/prompts.mjs [outdir]
import { mkdirSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';

const out = process.argv[2] || 'tests/e2e/artifacts/screens';
mkdirSync(out, { recursive: true });
const web = await startStatic({ root: 'dist', prefix: '/' });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const bad = `${out}/bad-prompts.yaml`;
writeFileSync(bad, 'mine:\n  version: 1\n  description: Broken\n  system: "Hello {name}"\n');
try {
  for (const scheme of ['light', 'dark']) {
    for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 800 }]]) {
      const ctx = await browser.newContext({ colorScheme: scheme, viewport });
      const page = await ctx.newPage();
      page.on('console', (m) => console.log(`[${scheme}-${label}] ${m.type()}: ${m.text()}`));
      page.on('pageerror', (e) => console.log(`[${scheme}-${label}] pageerror: ${e.message}`));
      await page.goto(web.url);
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      if (label === 'phone') await page.getByRole('button', { name: 'Chats' }).click();
      await page.getByLabel('Role').selectOption({ value: 'builtin:coder' });
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${out}/${scheme}-${label}-role.png` });
      await page.getByLabel('Role').selectOption({ value: 'builtin:assistant' });
      // "New chat" on an untouched chat keeps it (and closes the drawer on a phone).
      await page.locator('button.new-chat').click();
      await page.getByRole('button', { name: 'Chat setup', exact: true }).click();
      const setup = page.getByRole('dialog', { name: 'Chat setup' });
      await setup.waitFor();
      await setup.getByLabel('Reply language').selectOption('Chinese');
      await page.screenshot({ path: `${out}/${scheme}-${label}-setup.png` });
      await setup.getByRole('button', { name: 'Apply' }).click();
      await setup.waitFor({ state: 'hidden' });
      await page.locator('details.system-prompt summary').click();
      await page.screenshot({ path: `${out}/${scheme}-${label}-system.png` });
      if (label === 'phone') await page.getByRole('button', { name: 'Chats' }).click();
      await page.getByRole('button', { name: 'Prompts' }).click();
      const dlg = page.getByRole('dialog', { name: 'Prompts' });
      await dlg.waitFor();
      await dlg.getByRole('button', { name: /^planner/ }).click();
      await page.screenshot({ path: `${out}/${scheme}-${label}-prompts.png` });
      await dlg.getByRole('button', { name: 'Copy' }).click();
      await page.screenshot({ path: `${out}/${scheme}-${label}-prompts-editor.png` });
      await dlg.getByRole('button', { name: 'Cancel' }).click();
      await dlg.getByLabel('Import prompts').setInputFiles(bad);
      await dlg.getByRole('alert').waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-prompts-import-error.png` });
      const good = { name: 'mine.yaml', mimeType: 'application/yaml', buffer: Buffer.from('mine:\n  version: 1\n  description: Mine.\n  system: Be mine.\n') };
      await dlg.getByLabel('Import prompts').setInputFiles(good);
      await dlg.getByRole('status').filter({ hasText: 'Imported 1 prompt' }).waitFor();
      await dlg.getByLabel('Import prompts').setInputFiles(good);
      await dlg.getByRole('group', { name: 'Names already in use' }).waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-prompts-clash.png` });
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  await web.close();
}
