// Accessibility audit with axe-core (WCAG 2.x A/AA rules) of the main states of the app, in light
// and dark: empty chat, a conversation with markdown (code, table, link), an error alert, and the
// Settings, Rename and Delete dialogs, the prompt views (System prompt, Chat setup, Prompts), the
// model picker, a row's "Chat options", the command palette and "Keyboard shortcuts". Fails on any
// serious or critical violation.
//
// axe-core runs under the page's Content-Security-Policy like everything else: its source is
// served from a same-origin URL (a route of the test's browser context) and loaded with a
// <script src>, which `script-src 'self'` allows; a CSP violation fails the test (withApp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { useApp } from './support/app.mjs';
import { configure, sendMessage, waitIdle, byName, chatAction, poll } from './support/browser.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Where the page loads axe-core from: same origin as the app, answered by a context route. */
const AXE_PATH = '__e2e__/axe.min.js';

// Some tests make the app's own files fail: no service worker may answer for them.
const e2e = useApp({ serviceWorkers: 'block' });

/** Serves axe-core at AXE_PATH next to the app, for this page's browser context. */
async function serveAxe(page) {
  const url = new URL(AXE_PATH, e2e.web.url).href;
  await page.context().route(url, (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: AXE }));
  return url;
}

async function audit(page, label) {
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) {
    await page.addScriptTag({ url: new URL(AXE_PATH, e2e.web.url).href });
  }
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const serious = result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `${label}: accessibility violations:\n${JSON.stringify(serious, null, 2)}`);
}

for (const scheme of ['light', 'dark']) {
  test(`no serious accessibility violations (${scheme})`, async (t) => {
    await e2e.open(t, async ({ page }) => {
      await serveAxe(page);
      await audit(page, 'empty chat');

      await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-a11y' });
      e2e.fake.enqueue({
        reasoning: ['Thinking.'],
        chunks: ['Here is **code**:\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n', 'See [docs](https://example.test/docs).'],
      });
      await sendMessage(page, 'Show me code');
      await waitIdle(page);
      await audit(page, 'conversation');

      e2e.fake.enqueue({ chunks: Array.from({ length: 30 }, (_, i) => `w${i} `), delayMs: 100 });
      await sendMessage(page, 'Slowly');
      await page.getByRole('button', byName('Stop')).waitFor();
      await audit(page, 'streaming');
      await page.getByRole('button', byName('Stop')).click();
      await waitIdle(page);
      await audit(page, 'stopped reply');

      e2e.fake.enqueue({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
      await sendMessage(page, 'Again');
      await page.getByRole('alert').waitFor();
      await audit(page, 'error alert');

      await page.getByRole('button', byName('Chat actions')).click();
      await page.getByRole('menu', byName('Chat actions')).waitFor();
      await audit(page, 'Chat actions menu');
      await page.keyboard.press('Escape');
      for (const name of ['Settings', 'Rename chat', 'Delete chat']) {
        if (name === 'Settings') await page.getByRole('button', byName(name)).first().click();
        else await chatAction(page, name);
        await page.getByRole('dialog', byName(name)).waitFor();
        await audit(page, `${name} dialog`);
        await page.getByRole('dialog', byName(name)).getByRole('button', byName('Cancel')).click();
      }

      // The prompt views: the system prompt editor, Chat setup and Prompts (list, preview,
      // editor, an import error) on a fresh chat.
      await page.getByRole('button', byName('Edit system prompt')).first().click();
      await page.getByRole('dialog', byName('System prompt')).waitFor();
      await audit(page, 'System prompt dialog');
      await page.getByRole('dialog', byName('System prompt')).getByRole('button', byName('Cancel')).click();
      await page.locator('button.new-chat').click();
      await page.getByRole('button', byName('Chat setup')).waitFor();
      await audit(page, 'new chat with Chat setup');
      await page.getByRole('button', byName('Chat setup')).click();
      await page.getByRole('dialog', byName('Chat setup')).waitFor();
      await audit(page, 'Chat setup dialog');
      await page.getByRole('dialog', byName('Chat setup')).getByRole('button', byName('Cancel')).click();
      await page.getByRole('dialog', byName('Chat setup')).waitFor({ state: 'detached' });
      await page.getByRole('button', byName('Prompts')).click();
      const prompts = page.getByRole('dialog', byName('Prompts'));
      await prompts.waitFor();
      await audit(page, 'Prompts dialog');
      // A file chooser dismissed: its input's `cancel` bubbles up to the dialog, which stays.
      await prompts.getByLabel('Import prompts').dispatchEvent('cancel', { bubbles: true });
      await page.waitForTimeout(100);
      assert.equal(await prompts.isVisible(), true, 'Prompts still open after a dismissed file chooser');
      await prompts.getByLabel('Import prompts').setInputFiles({ name: 'bad.yaml', mimeType: 'application/yaml', buffer: Buffer.from('a: [1,\n') });
      await prompts.getByRole('alert').waitFor();
      await audit(page, 'Prompts dialog with an import error');
      await prompts.getByRole('button', byName('Copy')).click();
      await audit(page, 'Prompts editor');
      await prompts.getByRole('button', byName('Close')).click();
      await prompts.waitFor({ state: 'detached' });

      // The model picker, a row's "Chat options", the command palette (with an option active)
      // and "Keyboard shortcuts".
      await page.getByRole('button', { name: /^Model for this chat:/ }).click();
      const models = page.getByRole('dialog', byName('Model for this chat'));
      await models.waitFor();
      await audit(page, 'Model for this chat dialog');
      await page.keyboard.press('Escape');
      await models.waitFor({ state: 'detached' });
      await page.locator('.row-opts').first().click();
      await page.getByRole('menu', byName('Chat options')).waitFor();
      await audit(page, 'Chat options menu');
      await page.keyboard.press('Escape');
      await page.getByRole('menu', byName('Chat options')).waitFor({ state: 'hidden' });
      const closed = () => poll(async () => (await page.getByRole('dialog').count()) === 0, { message: 'no dialog open' });
      await closed();
      await page.keyboard.press('Control+K');
      const palette = page.getByRole('dialog', byName('Command palette'));
      await palette.waitFor();
      await audit(page, 'Command palette');
      await page.keyboard.press('ArrowDown');
      await palette.getByRole('combobox').fill('chat');
      await audit(page, 'Command palette with a search');
      await page.keyboard.press('Escape');
      await palette.waitFor({ state: 'detached' });
      await closed();
      await page.keyboard.press('Control+/');
      const shortcuts = page.getByRole('dialog', byName('Keyboard shortcuts'));
      await shortcuts.waitFor();
      await audit(page, 'Keyboard shortcuts');
      await page.keyboard.press('Escape');
      await shortcuts.waitFor({ state: 'detached' });
    }, { contextOptions: { colorScheme: scheme } });
  });
}
