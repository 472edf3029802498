// Screenshots of agent mode for a human to look at (not a test): the Agent dialog, a tool run
// (calls and results opened), a run stopped at "Max steps", in light and dark, desktop and phone.
// usage: node tests/screens/agent.mjs [outdir]
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
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
try {
  for (const scheme of ['light', 'dark']) {
    for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 800 }]]) {
      const ctx = await browser.newContext({ colorScheme: scheme, viewport });
      const page = await ctx.newPage();
      await page.goto(web.url);
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.waitFor();
      await page.getByRole('button', { name: 'Settings' }).first().click();
      const dlg = page.getByRole('dialog', { name: 'Settings' });
      await dlg.getByLabel('Provider').selectOption({ label: 'Custom' });
      await dlg.getByLabel('API base URL').fill(fake.baseUrl);
      await dlg.getByLabel('Model', { exact: true }).fill('fake-small');
      await dlg.getByRole('button', { name: 'Save' }).click();
      await dlg.waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'Agent' }).click();
      const agent = page.getByRole('dialog', { name: 'Agent' });
      await agent.getByRole('checkbox', { name: 'Agent mode' }).check();
      await agent.getByLabel('Max steps').fill('3');
      await page.screenshot({ path: `${out}/${scheme}-${label}-agent-dialog.png` });
      await agent.getByRole('button', { name: 'Save' }).click();
      await agent.waitFor({ state: 'hidden' });
      fake.enqueue(
        { chunks: ['Let me work it out.'], toolCalls: [
          { id: 'c1', name: 'calculator', arguments: '{"expression":"(1200*3 + 45.5) / 7"}' },
          { id: 'c2', name: 'current_time', arguments: '' }] },
        { chunks: ['Each of the seven shares is **520.79** (exactly 520.785714…), worked out on ', 'Tuesday.'] },
      );
      await box.fill('Split 3645.5 seven ways, and what day is it?');
      await box.press('Enter');
      await page.locator('article[data-role="assistant"]').nth(1).waitFor();
      await page.getByRole('button', { name: 'Send' }).waitFor();
      for (const s of await page.locator('details.tool-calls summary, details.tool-result summary').all()) await s.click();
      await page.screenshot({ path: `${out}/${scheme}-${label}-agent-run.png` });
      let n = 0;
      fake.setDefault(() => ({ toolCalls: [{ id: `l${++n}`, name: 'calculator', arguments: `{"expression":"${n}+1"}` }] }));
      await box.fill('Count forever');
      await box.press('Enter');
      await page.getByText('Agent mode stopped after 3 steps').waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-agent-max-steps.png` });
      fake.setDefault(null);
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  await fake.close();
  await web.close();
}
console.log(`screenshots in ${out}`);
