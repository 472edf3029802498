// What every screenshot script starts with: the output folder (its first argument), dist/ served
// on 127.0.0.1, the scripted fake server and headless Chromium; `close()` stops them.
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { startFakeLlm } from '../e2e/support/fake-llm.mjs';

export async function stage() {
  const out = process.argv[2] || 'tests/e2e/artifacts/screens';
  mkdirSync(out, { recursive: true });
  const web = await startStatic({ root: 'dist', prefix: '/' });
  const fake = await startFakeLlm();
  const browser = await chromium.launch({
    executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium',
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const close = async () => {
    await browser.close();
    await web.close();
    await fake.close();
  };
  return { out, web, fake, browser, close };
}
