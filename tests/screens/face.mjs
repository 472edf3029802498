// Screenshots of the everyday screens (not a test): a new chat, a chat with replies and the
// sidebar's list, in light and dark, desktop and phone width.
// usage: node tests/screens/face.mjs [outdir]
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { startFakeLlm } from '../e2e/support/fake-llm.mjs';
import { configure } from '../e2e/support/browser.mjs';

const out = process.argv[2] || 'tests/e2e/artifacts/screens';
mkdirSync(out, { recursive: true });
const web = await startStatic({ root: 'dist', prefix: '/' });
const fake = await startFakeLlm();
const browser = await chromium.launch({
  executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
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
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  await fake.close();
  await web.close();
}
