// Screenshots of Settings → Sync for a human to look at (not a test): synced with a real WebDAV
// server (WsgiDAV, tests/e2e/support/dav.mjs), and a server that does not answer, in light and
// dark, desktop and phone width, English and Chinese.
// usage: node tests/screens/sync.mjs [outdir]   (after a build)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { startDav } from '../e2e/support/dav.mjs';

const out = process.argv[2] || 'tests/e2e/artifacts/screens';
fs.mkdirSync(out, { recursive: true });
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-dav-shots-'));
fs.mkdirSync(path.join(root, 'files'));
const web = await startStatic({ root: 'dist', prefix: '/' });
const dav = await startDav({ root: path.join(root, 'files'), user: 'ann', password: 'pw', log: path.join(root, 'log.jsonl') });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
try {
  let n = 0;
  for (const locale of ['en-US', 'zh-CN']) {
    for (const scheme of ['light', 'dark']) {
      for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 800 }]]) {
        const ctx = await browser.newContext({ colorScheme: scheme, viewport, locale });
        const page = await ctx.newPage();
        await page.goto(web.url);
        await page.locator('.composer textarea').waitFor();
        const open = async () => {
          await page.locator('button[aria-label="Settings"], button:has-text("Settings"), button:has-text("设置")').first().click();
          await page.locator('.sync-settings').waitFor();
        };
        await open();
        const section = page.locator('.sync-settings');
        const inputs = section.locator('input');
        await inputs.nth(0).fill(`${dav.url}shots${n++}/`);
        await inputs.nth(1).fill('ann');
        await inputs.nth(2).fill('pw');
        await inputs.nth(3).fill('a passphrase');
        await section.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${out}/${locale}-${scheme}-${label}-sync-typed.png` });
        await section.locator('.sync-actions button').first().click();
        await page.waitForFunction(() => /Synced|已于/.test(document.querySelector('.sync-status')?.textContent ?? ''), null, { timeout: 30_000 });
        await section.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${out}/${locale}-${scheme}-${label}-sync-synced.png` });
        await ctx.close();
      }
    }
  }
  // A server that does not answer (English, light, desktop and phone).
  for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 800 }]]) {
    const ctx = await browser.newContext({ viewport });
    const page = await ctx.newPage();
    await page.goto(web.url);
    await page.locator('.composer textarea').waitFor();
    await page.getByRole('button', { name: 'Settings' }).first().click();
    const section = page.locator('.sync-settings');
    await section.getByLabel('WebDAV URL', { exact: true }).fill('http://127.0.0.1:9/satori/');
    await section.getByLabel('Encryption passphrase', { exact: true }).fill('a passphrase');
    await section.getByRole('button', { name: 'Start syncing' }).click();
    await page.waitForFunction(() => /Could not reach/.test(document.querySelector('.sync-status')?.textContent ?? ''), null, { timeout: 30_000 });
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${out}/en-US-light-${label}-sync-unreachable.png` });
    await ctx.close();
  }
} finally {
  await browser.close();
  await dav.stop();
  await web.close();
  fs.rmSync(root, { recursive: true, force: true });
}
console.log(`screenshots in ${out}`);
