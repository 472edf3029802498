// Screenshots of what keeps text honest (#37), for a human to look at (not a test): a chat whose
// title holds a bidi override (shown as <U+202E> in the header and the chat list), a reply with a
// link whose text names another host (the real host after it) and a code block with hidden
// characters (badges) after "Copy code", and a shared chat with such a title; light and dark,
// desktop and phone width.
// usage: node tests/screens/trust.mjs [outdir]   (after a build)
import { mkdirSync } from 'node:fs';
import zlib from 'node:zlib';
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
const REPLY = [
  'Sign in at [https://bank.example](https://bank-example.evil.test/login) or read [the guide](https://bank.example/help).\n\n',
  'Then run:\n\n```sh\nchmod +x ./install.sh # \u202Eno-op\u202C\necho "\u001b[2Kdone"\u200B\n```\n',
];
const at = (s) => `2026-12-01T00:00:0${s}.000Z`;
const shared = `${web.url}#share=${zlib.deflateRawSync(Buffer.from(JSON.stringify({
  format: 'satori-export',
  version: 1,
  exported_at: at(9),
  chats: [{
    id: 'c1',
    title: 'Invoice \u202Efdp.exe',
    created_at: at(0),
    updated_at: at(2),
    messages: [
      { id: 'm1', role: 'user', content: 'Is this invoice safe to open?', status: 'complete', created_at: at(1) },
      { id: 'm2', parent: 'm1', role: 'assistant', content: 'Its real name is `Invoice \u202Efdp.exe`: an executable.', status: 'complete', created_at: at(2) },
    ],
  }],
}))).toString('base64url')}`;
try {
  for (const scheme of ['light', 'dark']) {
    for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 800 }]]) {
      const ctx = await browser.newContext({ colorScheme: scheme, viewport, permissions: ['clipboard-read', 'clipboard-write'] });
      const page = await ctx.newPage();
      await page.goto(web.url);
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.waitFor();
      await page.getByRole('button', { name: 'Settings' }).first().click();
      const dlg = page.getByRole('dialog', { name: 'Settings' });
      await dlg.getByLabel('Provider').selectOption({ label: 'Custom' });
      await dlg.getByLabel('API base URL').fill(fake.baseUrl);
      await dlg.getByLabel('API key').fill('sk-demo');
      await dlg.getByLabel('Model', { exact: true }).fill('fake-small');
      await dlg.getByRole('button', { name: 'Save' }).click();
      fake.enqueue({ chunks: REPLY, delayMs: 20 });
      await box.fill('Open Invoice \u202Efdp.exe?');
      await box.press('Enter');
      await page.getByRole('button', { name: 'Send' }).waitFor();
      await page.locator('.md-real-host').waitFor();
      await page.getByRole('button', { name: 'Copy code' }).click();
      await page.getByText('Copied (contains hidden characters)').waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-trust-chat.png` });
      await page.goto(shared);
      const dialog = page.getByRole('dialog', { name: 'Shared chat' });
      await dialog.getByRole('button', { name: 'Save a copy' }).waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-trust-shared.png` });
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  await fake.close();
  await web.close();
}
