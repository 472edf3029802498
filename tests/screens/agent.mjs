// Screenshots of agent mode for a human to look at (not a test): the Agent dialog, a tool run
// (calls and results opened), a run stopped at "Max steps", MCP servers in Settings (listed, and
// a failure), "Allow tool call", a plan's checklist part-way through "Run plan", a failed plan, and a planner
// chat's structured replies (one repaired, one unusable), in light and dark, desktop and phone.
// usage: node tests/screens/agent.mjs [outdir]
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { startFakeLlm } from '../e2e/support/fake-llm.mjs';
import { startMcp } from '../e2e/support/mcp.mjs';

const out = process.argv[2] || 'tests/e2e/artifacts/screens';
mkdirSync(out, { recursive: true });
const web = await startStatic({ root: 'dist', prefix: '/' });
const fake = await startFakeLlm();
const mcp = await startMcp();
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

      // MCP servers in Settings: one listed with its switches, then a failure.
      await page.getByRole('button', { name: 'Settings' }).first().click();
      const settings = page.getByRole('dialog', { name: 'Settings' });
      await settings.getByLabel('MCP server URL').fill(mcp.url);
      await settings.getByRole('button', { name: 'Add MCP server' }).click();
      await settings.getByRole('group', { name: 'MCP server Satori test tools' }).waitFor();
      await settings.getByRole('checkbox', { name: 'slow_echo', exact: true }).uncheck();
      await settings.locator('.mcp-settings').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${out}/${scheme}-${label}-mcp-settings.png` });
      await settings.getByLabel('MCP server URL').fill('http://127.0.0.1:9/mcp');
      await settings.getByRole('button', { name: 'Add MCP server' }).click();
      await settings.getByRole('alert').filter({ hasText: 'could not reach' }).waitFor();
      await settings.getByRole('alert').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${out}/${scheme}-${label}-mcp-error.png` });
      await settings.getByRole('button', { name: 'Save' }).click();
      await settings.waitFor({ state: 'hidden' });

      // "Allow tool call": a call to the MCP server after the turn read other chats.
      fake.enqueue(
        { toolCalls: [
          { id: 'a1', name: 'search_chats', arguments: '{"query":"order"}' },
          { id: 'a2', name: 'lookup_order', arguments: '{"order_id":"A-1001 (from: Split 3645.5 seven ways)"}' }] },
        { chunks: ['Order A-1001 has shipped.'] },
      );
      await box.fill('Where is order A-1001?');
      await box.press('Enter');
      const allow = page.getByRole('dialog', { name: 'Allow tool call' });
      await allow.waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-allow-tool-call.png` });
      await allow.getByRole('button', { name: 'Allow once' }).click();
      await page.getByRole('button', { name: 'Send' }).waitFor();

      // A plan: made by the planner, then run part of the way.
      const plan = { goal: 'Move house', questions: ['Which date?'], steps: [
        { id: 1, action: 'Book a van', done_when: 'a van is booked' },
        { id: 2, action: 'Pack every room', done_when: 'every box is closed', depends_on: [1] },
        { id: 3, action: 'Clean the old flat', done_when: 'the flat is clean', depends_on: [2] }] };
      fake.enqueue(
        { toolCalls: [{ id: 'p1', name: 'planner', arguments: '{"goal":"Move house"}' }] },
        { chunks: [JSON.stringify(plan)] },
        { chunks: ['Here is the plan: three steps. Press **Run plan** to go through them.'] },
        { chunks: ['Van booked for Saturday, 9:00.'] },
        { chunks: ['Packing ', 'the ', 'kitchen…'], delayMs: 200, stall: true },
      );
      await box.fill('Help me move house');
      await box.press('Enter');
      const checklist = page.getByRole('group', { name: 'Plan' });
      await checklist.getByText('0 of 3 steps done').waitFor();
      await page.getByRole('button', { name: 'Send' }).waitFor();
      await checklist.getByRole('button', { name: 'Run plan' }).click();
      await checklist.getByText('1 of 3 steps done').waitFor();
      await page.getByText('Packing the').waitFor();
      await checklist.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${out}/${scheme}-${label}-plan-run.png` });
      await page.getByRole('button', { name: 'Stop' }).click();
      await page.getByRole('button', { name: 'Send' }).waitFor();

      // A plan that never became valid.
      fake.enqueue(
        { toolCalls: [{ id: 'p2', name: 'planner', arguments: '{"goal":"Plan a trip"}' }] },
        { chunks: ['Sure! Book flights, then a hotel.'] },
        { chunks: ['I cannot produce JSON.'] },
        { chunks: ['Flights, then hotel.'] },
        { chunks: ['I could not make a plan; tell me your dates and budget and I will try again.'] },
      );
      await box.fill('Plan my trip');
      await box.press('Enter');
      await page.getByText('I could not make a plan').waitFor();
      await page.getByRole('button', { name: 'Send' }).waitFor();
      await page.locator('details.tool-result summary').last().click();
      await page.getByText(/^Plan unavailable/).last().scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${out}/${scheme}-${label}-plan-failed.png` });

      // Structured replies in a planner chat: one repaired locally (drawn as JSON), one unusable.
      if (label === 'phone') await page.getByRole('button', { name: 'Chats' }).click();
      await page.getByRole('combobox', { name: 'Role' }).selectOption('builtin:planner');
      await page.locator('button.new-chat').click();
      await page.waitForFunction(() => {
        const index = JSON.parse(localStorage.getItem('satori.index') || '{}');
        const chat = JSON.parse(localStorage.getItem(`satori.session.${index.active}`) || '{}');
        return chat.prompt?.key === 'planner';
      });
      fake.enqueue(
        { chunks: ['```json\n{"goal": "Team offsite", "steps": [{"id": 1, "action": "Book a venue", "done_when": "a venue is booked"}, {"id": 2, "action": "Send invitations", "done_when": "everyone has a date", "depends_on": [1]},], "questions": ["Which city?"]}\n```'] },
        { chunks: ['Sure! First book a venue, then send the invitations.'] },
        { chunks: ['I cannot write JSON.'] },
        { chunks: ['Venue, then invitations.'] },
      );
      await box.fill('Plan a team offsite.');
      await box.press('Enter');
      await page.getByText(/^JSON repaired locally/).waitFor();
      await page.getByRole('button', { name: 'Send' }).waitFor();
      await box.fill('And a second one?');
      await box.press('Enter');
      await page.getByText(/^Plan unavailable: still invalid/).waitFor();
      await page.getByRole('button', { name: 'Send' }).waitFor();
      await page.screenshot({ path: `${out}/${scheme}-${label}-structured.png` });
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  await mcp.stop();
  await fake.close();
  await web.close();
}
console.log(`screenshots in ${out}`);
