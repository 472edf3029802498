// Prompt roles and templates: the Role select, Chat setup, a chat's own system prompt, and the
// "Prompts" dialog (import, use, export, re-import, edit, delete, bad files, a bad record).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { useApp } from './support/app.mjs';
import {
  configure,
  waitIdle,
  sendMessage,
  articles,
  alerts,
  byName,
  poll,
  reload,
  localStorageEntries,
  storedChat,
  messageBox,
  openSession,
  openPrompts,
  importPrompts as importFile,
} from './support/browser.mjs';

// Some tests make the app's own files fail: no service worker may answer for them.
const e2e = useApp({ serviceWorkers: 'block' });

async function setup(page) {
  e2e.fake.reset();
  await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-prompts' });
}

const roleSelect = (page) => page.getByRole('combobox', byName('Role'));


async function userPrompts(page) {
  const text = await page.evaluate(() => localStorage.getItem('satori.prompts'));
  return text === null ? null : JSON.parse(text);
}


/** Sends `text` and returns the request body the fake server received for it. */
async function sendAndCapture(page, text) {
  const before = e2e.fake.chatRequests().length;
  await sendMessage(page, text);
  await waitIdle(page);
  await e2e.fake.waitFor(() => e2e.fake.chatRequests().length > before, { message: 'the chat request' });
  // The request the message went out in (a planner chat's repair requests may follow it).
  return e2e.fake.chatRequests()[before].body;
}

const TEAM_FILE = `# Two prompts for the support team
support:
  version: 3
  description: Answers customer tickets politely.
  system:
    - You answer support tickets for {company}. Be polite and brief.
    - fragment: honest-uncertainty
    - text: Sign every answer as "{company} Support".
      when: sign
  examples:
    - input: Where is my order A-1042?
      output: Order A-1042 shipped on 3 March; it arrives within two days.
  variables:
    company: {default: Acme, description: Company name}
    sign: {default: "yes", options: ["yes", ""]}

reviewer:
  version: 1
  description: Reviews a diff.
  system: |-
    Review the diff for {project}. Literal braces stay: {{"ok": true}}.
  variables:
    project: The project name.
`;

test('the Role select offers every role with its description; a coder chat sends the coder system prompt first', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const options = await roleSelect(page).locator('option').allInnerTexts();
    for (const want of [
      'assistant — A helpful general assistant.',
      'coder — A careful programming assistant.',
      'planner — Turns a goal into a step-by-step plan as JSON.',
      'summarizer — Summarizes a conversation, keeping every fact that matters.',
      'translator — Translates text faithfully into a chosen language.',
    ]) {
      assert.ok(options.includes(want), `option ${want} in ${JSON.stringify(options)}`);
    }
    assert.equal(await roleSelect(page).inputValue(), 'builtin:assistant', 'the default role is selected');

    await roleSelect(page).selectOption('builtin:coder');
    await poll(async () => (await openSession(page)).prompt?.key === 'coder', { message: 'the untouched chat to take the coder role' });
    const shown = (await articles(page, 'system').first().locator('.content').textContent()).trim();
    assert.match(shown, /expert software engineer/);

    const body = await sendAndCapture(page, 'Write a function that adds two numbers.');
    assert.equal(body.messages[0].role, 'system');
    assert.equal(body.messages[0].content, shown, 'the system prompt shown is the one sent');
    assert.match(body.messages[0].content, /Never invent functions/, 'the constraint fragment is assembled in');
    assert.match(body.messages[0].content, /fenced code blocks/, 'the format fragment is assembled in');
    assert.deepEqual(body.messages.slice(1).map((m) => m.role), ['user']);

    const session = await openSession(page);
    assert.equal(session.prompt.source, 'builtin');
    assert.equal(session.prompt.key, 'coder');
    assert.equal(session.prompt.version, 2);
    assert.deepEqual(session.prompt.vars, { language: '' });
    assert.equal(session.messages[0].role, 'system', 'the system prompt is the first message of the session');

    // New chats keep the chosen role.
    await page.locator('button.new-chat').click();
    await poll(async () => (await openSession(page)).id !== session.id, { message: 'a new chat' });
    assert.equal((await openSession(page)).prompt.key, 'coder');
  });
});

test('Chat setup: picking Chinese adds the language rules; a planner chat sends its few-shot example', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await page.getByRole('button', byName('Chat setup')).click();
    const dialog = page.getByRole('dialog', byName('Chat setup'));
    await dialog.waitFor();
    await dialog.getByRole('combobox', byName('Reply language')).selectOption('Chinese');
    await poll(async () => /Always reply in Chinese/.test(await dialog.locator('.prompt-preview').innerText()), {
      message: 'the preview to show the language rule',
    });
    await dialog.getByRole('button', byName('Apply')).click();
    await dialog.waitFor({ state: 'hidden' });
    await poll(async () => (await openSession(page)).prompt?.vars?.reply_language === 'Chinese', { message: 'the chat to restart with Chinese' });

    const body = await sendAndCapture(page, 'Hello');
    assert.match(body.messages[0].content, /Always reply in Chinese/);
    assert.match(body.messages[0].content, /简体中文/);

    // Planner: system prompt with the schema, then the example pair, then the user message.
    await roleSelect(page).selectOption('builtin:planner');
    await page.locator('button.new-chat').click();
    await poll(async () => (await openSession(page)).prompt?.key === 'planner', { message: 'a planner chat' });
    const plan = await sendAndCapture(page, 'Plan a team offsite.');
    assert.deepEqual(plan.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.match(plan.messages[0].content, /"required": \["goal", "steps", "questions"\]/);
    assert.doesNotThrow(() => JSON.parse(plan.messages[2].content), 'the example answer is JSON');
    assert.equal(plan.messages[3].content, 'Plan a team offsite.');
    // The examples are shown with the system prompt, not as conversation turns to edit.
    assert.equal(await articles(page, 'user').and(page.locator('[data-example="true"]')).count(), 1);
  });
});

test("editing a chat's system prompt changes what that chat sends, not the template", async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await page.getByRole('button', byName('Edit system prompt')).click();
    const dialog = page.getByRole('dialog', byName('System prompt'));
    await dialog.waitFor();
    await dialog.getByRole('textbox', byName('System prompt')).fill('You are a pirate. Answer in pirate speak.');
    await dialog.getByRole('button', byName('Save')).click();
    await dialog.waitFor({ state: 'hidden' });

    const body = await sendAndCapture(page, 'Hello');
    assert.equal(body.messages[0].content, 'You are a pirate. Answer in pirate speak.');
    const session = await openSession(page);
    assert.equal(session.prompt.system_edited, true);

    await reload(page);
    const again = await sendAndCapture(page, 'Still there?');
    assert.equal(again.messages[0].content, 'You are a pirate. Answer in pirate speak.', 'the edit survives a reload');

    // The template is untouched: a new chat starts from it.
    await page.locator('button.new-chat').click();
    await poll(async () => (await openSession(page)).id !== session.id, { message: 'a new chat' });
    const fresh = await sendAndCapture(page, 'Hi');
    assert.match(fresh.messages[0].content, /^You are Satori/);
  });
});

test('import a prompt file, use it, export it, delete it, re-import the export', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    let dialog = await openPrompts(page);
    await importFile(dialog, 'team.yaml', TEAM_FILE);
    await dialog.getByRole('status').filter({ hasText: 'Imported 2 prompts from team.yaml.' }).waitFor();
    const stored = await userPrompts(page);
    assert.equal(stored.v, 1);
    assert.deepEqual(stored.templates.map((x) => x.template.key), ['support', 'reviewer']);
    assert.doesNotMatch(JSON.stringify(stored), /sk-e2e-prompts/, 'no API key in the prompts record');

    // Preview of the imported template, rendered with its defaults.
    await dialog.getByRole('button', { name: /^support/ }).click();
    const preview = await dialog.locator('.prompt-preview').first().innerText();
    assert.match(preview, /support tickets for Acme/);
    assert.match(preview, /If you are not sure, say so/, 'the built-in fragment is included');

    // Use it.
    await dialog.getByRole('button', byName('Use in new chat')).click();
    await dialog.waitFor({ state: 'hidden' });
    await poll(async () => (await openSession(page)).prompt?.key === 'support', { message: 'a chat with the imported role' });
    assert.equal(await roleSelect(page).inputValue(), 'user:support');
    assert.ok((await roleSelect(page).locator('option').allInnerTexts()).includes('support — Answers customer tickets politely.'));
    const body = await sendAndCapture(page, 'My parcel is late.');
    assert.deepEqual(body.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.match(body.messages[0].content, /^You answer support tickets for Acme\. Be polite and brief\./);
    assert.match(body.messages[0].content, /Sign every answer as "Acme Support"\.$/);
    assert.equal(body.messages[1].content, 'Where is my order A-1042?');
    const session = await openSession(page);
    assert.deepEqual(
      { source: session.prompt.source, key: session.prompt.key, version: session.prompt.version, vars: session.prompt.vars },
      { source: 'user', key: 'support', version: 3, vars: { company: 'Acme', sign: 'yes' } },
    );

    // Export.
    dialog = await openPrompts(page);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      dialog.getByRole('button', byName('Export prompts')).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'satori-prompts.yaml');
    const exported = fs.readFileSync(await download.path(), 'utf8');
    assert.match(exported, /^support:$/m);
    assert.match(exported, /^reviewer:$/m);
    assert.doesNotMatch(exported, /sk-e2e-prompts/);

    // Delete both, then re-import the exported file: the same templates come back.
    for (const key of ['support', 'reviewer']) {
      await dialog.getByRole('button', { name: new RegExp(`^${key}`) }).click();
      await dialog.getByRole('button', byName('Delete')).click();
      await dialog.getByRole('button', byName('Delete prompt')).click();
      await dialog.getByRole('status').filter({ hasText: `Deleted “${key}”.` }).waitFor();
    }
    assert.deepEqual((await userPrompts(page)).templates, []);
    await poll(async () => !(await roleSelect(page).locator('option').allInnerTexts()).some((o) => o.startsWith('support')), {
      message: 'the Role select to drop the deleted prompt',
    });
    await importFile(dialog, 'satori-prompts.yaml', exported);
    await dialog.getByRole('status').filter({ hasText: 'Imported 2 prompts' }).waitFor();
    const back = await userPrompts(page);
    assert.deepEqual(back.templates.map((x) => x.template), stored.templates.map((x) => x.template), 'the round trip keeps every template exactly');
  });
});

test('bad prompt files are refused with line and column, and nothing is saved', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const dialog = await openPrompts(page);
    await importFile(dialog, 'good.yaml', 'keep:\n  version: 1\n  description: Kept.\n  system: Stay.\n');
    await dialog.getByRole('status').filter({ hasText: 'Imported 1 prompt' }).waitFor();
    const before = await userPrompts(page);
    const cases = [
      ['syntax.yaml', 'a:\n  version: 1\n description: d\n', /syntax\.yaml line 3, column 2: invalid YAML/],
      ['dup.yaml', 'a:\n  version: 1\n  version: 2\n', /dup\.yaml line 3, column 3: invalid YAML: duplicate key `version` \(first written at line 2\)/],
      ['undeclared.yaml', 'a:\n  version: 1\n  description: d\n  system: "Hi {name}"\n', /undeclared\.yaml line 4, column 11: `a\.system`: placeholder `\{name\}` is not declared/],
      ['fragment.yaml', 'a:\n  version: 1\n  description: d\n  system:\n    - fragment: nope\n', /fragment\.yaml line 5, column 17: `a\.system\[0\]\.fragment`: unknown fragment `nope`/],
      ['nosystem.yaml', 'a:\n  version: 1\n  description: d\n', /nosystem\.yaml line 1, column 1: `a`: missing `system`/],
      ['notyaml.yaml', '\u0000\u0001 binary', /notyaml\.yaml line 1/],
    ];
    for (const [name, text, want] of cases) {
      await importFile(dialog, name, text);
      const alert = dialog.getByRole('alert');
      await poll(async () => want.test(await alert.innerText()), { message: `the error for ${name}` });
      assert.match(await alert.innerText(), /^Nothing was imported\./);
      assert.deepEqual(await userPrompts(page), before, `${name} saved nothing`);
    }
    // The editor refuses the same way.
    await dialog.getByRole('button', byName('New prompt')).click();
    await dialog.getByRole('textbox', byName('Template (YAML)')).fill('x:\n  version: 1\n  description: d\n  system: "{ oops"\n');
    await dialog.getByRole('button', byName('Save prompt')).click();
    await poll(async () => /line 4, column 11: `x\.system`: line 1 column 1 of this text/.test(await dialog.getByRole('alert').innerText()), {
      message: 'the editor error',
    });
    assert.deepEqual(await userPrompts(page), before);
  });
});

test('built-ins are read-only; a copy is saved under its own name and can be edited', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const dialog = await openPrompts(page);
    await dialog.getByRole('button', { name: /^coder/ }).click();
    assert.equal(await dialog.getByRole('button', byName('Edit')).count(), 0, 'no Edit for a built-in');
    assert.equal(await dialog.getByRole('button', byName('Delete')).count(), 0, 'no Delete for a built-in');
    await dialog.getByRole('button', byName('Copy')).click();
    const editor = dialog.getByRole('textbox', byName('Template (YAML)'));
    const text = await editor.inputValue();
    assert.match(text, /^coder-copy:\n/);
    await editor.fill(text.replace('coder-copy:', 'my-coder:').replace(/description: .*/, 'description: "My coder."'));
    await dialog.getByRole('button', byName('Save prompt')).click();
    await dialog.getByRole('status').filter({ hasText: 'Saved “my-coder”.' }).waitFor();
    await poll(async () => page.evaluate(() => document.activeElement?.matches('.prompt-item[aria-current="true"]')), {
      message: 'focus to move to the saved prompt in the list',
    });
    let stored = await userPrompts(page);
    assert.deepEqual(stored.templates.map((x) => [x.template.key, x.template.description]), [['my-coder', 'My coder.']]);
    // The copy keeps the built-in fragments and renders like the original.
    const original = await page.evaluate(() => document.querySelector('.prompt-preview')?.innerText);
    assert.match(original, /expert software engineer/);

    // Edit: focus is in the editor, typing keeps the caret, and the stored source is what was
    // typed (comments kept).
    await dialog.getByRole('button', byName('Edit')).click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'prompt-yaml', 'focus moves into the editor');
    const source = await editor.inputValue();
    await editor.press('Control+Home');
    await page.keyboard.type('# mine\n', { delay: 20 });
    assert.equal(await editor.inputValue(), `# mine\n${source}`, 'key by key typing lands where the caret is');
    await editor.fill(`# mine\n${source.replace('version: 2', 'version: 3')}`);
    await dialog.getByRole('button', byName('Save prompt')).click();
    await dialog.getByRole('status').filter({ hasText: 'Saved “my-coder”.' }).waitFor();
    stored = await userPrompts(page);
    assert.equal(stored.templates[0].template.version, 3);
    assert.match(stored.templates[0].source, /^# mine\n/);

    await dialog.getByRole('button', byName('Close')).click();
    await dialog.waitFor({ state: 'hidden' });
    // Focus returns to the button that opened the dialog.
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Prompts');
  });
});

test('a template variable without a default: sending waits and names it; Chat setup fills it in', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const dialog = await openPrompts(page);
    await importFile(dialog, 'team.yaml', TEAM_FILE);
    await dialog.getByRole('status').filter({ hasText: 'Imported 2 prompts' }).waitFor();
    await dialog.getByRole('button', { name: /^reviewer/ }).click();
    await dialog.getByRole('button', byName('Use in new chat')).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('This chat cannot start yet: prompt `reviewer` needs a value for variable `project`.').waitFor();

    const before = e2e.fake.chatRequests().length;
    await messageBox(page).fill('Please review.');
    await messageBox(page).press('Enter');
    await alerts(page).filter({ hasText: 'needs a value for variable `project`' }).waitFor();
    assert.equal(e2e.fake.chatRequests().length, before, 'nothing was sent');
    assert.equal(await messageBox(page).inputValue(), 'Please review.', 'the message is kept');

    await page.getByRole('button', byName('Chat setup')).click();
    const setupDialog = page.getByRole('dialog', byName('Chat setup'));
    await setupDialog.getByRole('textbox', byName('Project')).fill('Apollo {x}');
    await setupDialog.getByRole('button', byName('Apply')).click();
    await setupDialog.waitFor({ state: 'hidden' });
    await poll(async () => (await openSession(page)).messages.length === 1, { message: 'the chat to get its system prompt' });
    const body = await sendAndCapture(page, 'Please review.');
    assert.equal(body.messages[0].content, 'Review the diff for Apollo {x}. Literal braces stay: {"ok": true}.', 'values are inserted verbatim, escapes undone');
  });
});

test('an unreadable prompts record is reported, left untouched and never overwritten', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await page.evaluate(() => localStorage.setItem('satori.prompts', '{"v":1,"templates":[{"broken'));
    await reload(page);
    await alerts(page).filter({ hasText: 'Your prompt templates could not be read' }).waitFor();
    const options = await roleSelect(page).locator('option').allInnerTexts();
    assert.ok(options.some((o) => o.startsWith('coder')), 'built-in roles still work');
    const dialog = await openPrompts(page);
    await importFile(dialog, 'good.yaml', 'keep:\n  version: 1\n  description: Kept.\n  system: Stay.\n');
    await dialog.getByRole('alert').filter({ hasText: 'could not be read' }).waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('satori.prompts')), '{"v":1,"templates":[{"broken');
  });
});

test('if the dialogs module cannot load: a clear alert, and chats with built-in roles still start', async (t) => {
  await e2e.open(t, async ({ page }) => {
    // Settings lives in the same on-demand module: point the app at the fake server first,
    // then start again with the module blocked.
    await setup(page);
    await page.route('**/dialogs-*/**', (route) => route.abort());
    await reload(page);
    await page.getByRole('button', byName('Prompts')).click();
    await alerts(page).filter({ hasText: 'Prompts could not be opened' }).waitFor();
    await page.getByRole('button', byName('Settings')).click();
    await alerts(page).filter({ hasText: 'Settings could not be opened' }).waitFor();
    // Built-in roles with their defaults need no module.
    await roleSelect(page).selectOption('builtin:coder');
    await poll(async () => (await openSession(page)).prompt?.key === 'coder', { message: 'the coder role without the module' });
    const body = await sendAndCapture(page, 'Hi');
    assert.match(body.messages[0].content, /expert software engineer/);
  });
});

test('a prompt file too large, or storage too full, is refused without losing anything', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const dialog = await openPrompts(page);
    await importFile(dialog, 'huge.yaml', `big:\n  version: 1\n  description: d\n  system: "${'x'.repeat(600 * 1024)}"\n`);
    await dialog.getByRole('alert').filter({ hasText: 'a prompt file may be at most 512 KB' }).waitFor();
    assert.equal(await userPrompts(page), null, 'nothing saved');

    await importFile(dialog, 'good.yaml', 'keep:\n  version: 1\n  description: Kept.\n  system: Stay.\n');
    await dialog.getByRole('status').filter({ hasText: 'Imported 1 prompt' }).waitFor();
    const before = await page.evaluate(() => localStorage.getItem('satori.prompts'));
    // Fill the rest of the quota (real localStorage, real QuotaExceededError).
    await page.evaluate(() => {
      let size = 1 << 20;
      for (let i = 0; size >= 16; i++) {
        try { localStorage.setItem(`filler.${i}`, 'x'.repeat(size)); } catch { size = size >> 1; }
      }
    });
    await importFile(dialog, 'more.yaml', `more:\n  version: 1\n  description: More.\n  system: "${'y'.repeat(4096)}"\n`);
    await dialog.getByRole('alert').filter({ hasText: /storage is full/i }).waitFor();
    assert.match(await dialog.getByRole('alert').innerText(), /^Nothing was imported/);
    assert.equal(await page.evaluate(() => localStorage.getItem('satori.prompts')), before, 'the stored templates are unchanged');
    assert.equal(await dialog.getByRole('button', { name: /^more/ }).count(), 0, 'the refused template is not listed');
    await page.evaluate(() => { for (const k of Object.keys(localStorage)) if (k.startsWith('filler.')) localStorage.removeItem(k); });
  });
});

test('template text is shown as text: markup in a user prompt neither runs nor fetches anything', async (t) => {
  await e2e.open(t, async ({ page, requests }) => {
    await setup(page);
    const hostile = '<img src="http://127.0.0.2:9/x.png" onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const file = `evil:\n  version: 1\n  description: '${hostile}'\n  system: '${hostile} [link](javascript:alert(1))'\n`;
    const dialog = await openPrompts(page);
    await importFile(dialog, 'evil.yaml', file);
    await dialog.getByRole('status').filter({ hasText: 'Imported 1 prompt' }).waitFor();
    await dialog.getByRole('button', { name: /^evil/ }).click();
    assert.match(await dialog.locator('.prompt-preview').first().innerText(), /<script>window.__pwned=2<\/script>/, 'shown literally');
    await dialog.getByRole('button', byName('Use in new chat')).click();
    await dialog.waitFor({ state: 'hidden' });
    await poll(async () => (await openSession(page)).prompt?.key === 'evil', { message: 'a chat with the role' });
    await page.locator('details.system-prompt summary').click();
    assert.match(await articles(page, 'system').first().locator('.content').innerText(), /<img src=/);
    assert.ok((await roleSelect(page).locator('option').allInnerTexts()).some((o) => o.includes('<img src=')), 'the option shows the text');
    assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no script ran');
    assert.equal(await page.locator('img').count(), 0, 'no image element was created');
    assert.ok(!requests.some((u) => u.includes('127.0.0.2')), 'nothing was fetched from the markup');
  });
});

test('an untouched chat follows edits to its user template; a started chat keeps what it sent', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    let dialog = await openPrompts(page);
    await importFile(dialog, 'mine.yaml', 'mine:\n  version: 1\n  description: Mine.\n  system: Old text.\n');
    await dialog.getByRole('status').filter({ hasText: 'Imported 1 prompt' }).waitFor();
    await dialog.getByRole('button', byName('Use in new chat')).click();
    await dialog.waitFor({ state: 'hidden' });
    await poll(async () => (await openSession(page)).messages[0]?.content === 'Old text.', { message: 'the chat to start from the template' });

    dialog = await openPrompts(page);
    await dialog.getByRole('button', { name: /^mine/ }).click();
    await dialog.getByRole('button', byName('Edit')).click();
    await dialog.getByRole('textbox', byName('Template (YAML)')).fill('mine:\n  version: 2\n  description: Mine.\n  system: New text.\n');
    await dialog.getByRole('button', byName('Save prompt')).click();
    await dialog.getByRole('status').filter({ hasText: 'Saved “mine”.' }).waitFor();
    await dialog.getByRole('button', byName('Close')).click();
    await poll(async () => (await openSession(page)).messages[0]?.content === 'New text.', { message: 'the untouched chat to follow the edit' });
    assert.equal((await openSession(page)).prompt.version, 2);
    const body = await sendAndCapture(page, 'Hi');
    assert.equal(body.messages[0].content, 'New text.');

    // Once started, the chat keeps its system prompt.
    dialog = await openPrompts(page);
    await dialog.getByRole('button', { name: /^mine/ }).click();
    await dialog.getByRole('button', byName('Edit')).click();
    await dialog.getByRole('textbox', byName('Template (YAML)')).fill('mine:\n  version: 3\n  description: Mine.\n  system: Newest text.\n');
    await dialog.getByRole('button', byName('Save prompt')).click();
    await dialog.getByRole('status').filter({ hasText: 'Saved “mine”.' }).waitFor();
    await dialog.getByRole('button', byName('Close')).click();
    const again = await sendAndCapture(page, 'Still you?');
    assert.equal(again.messages[0].content, 'New text.');
    assert.equal((await openSession(page)).prompt.version, 2);
  });
});

test('importing names you already use asks first: keep both, replace, or cancel', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    const dialog = await openPrompts(page);
    const v1 = 'support:\n  version: 1\n  description: Mine.\n  system: My own text.\n';
    const v2 = 'support:\n  version: 2\n  description: Theirs.\n  system: Their text.\nextra:\n  version: 1\n  description: Extra.\n  system: Extra text.\n';
    await importFile(dialog, 'mine.yaml', v1);
    await dialog.getByRole('status').filter({ hasText: 'Imported 1 prompt' }).waitFor();
    const before = await userPrompts(page);

    const group = dialog.getByRole('group', byName('Names already in use'));
    await importFile(dialog, 'theirs.yaml', v2);
    await group.filter({ hasText: 'theirs.yaml has prompts named like yours: support.' }).waitFor();
    assert.deepEqual(await userPrompts(page), before, 'nothing is saved before the choice');
    await group.getByRole('button', byName('Cancel import')).click();
    await dialog.getByRole('status').filter({ hasText: 'Import cancelled; nothing was changed.' }).waitFor();
    assert.deepEqual(await userPrompts(page), before);

    await importFile(dialog, 'theirs.yaml', v2);
    await group.getByRole('button', byName('Keep both')).click();
    await dialog.getByRole('status').filter({ hasText: 'Imported 2 prompts from theirs.yaml.' }).waitFor();
    let stored = await userPrompts(page);
    assert.deepEqual(stored.templates.map((x) => [x.template.key, x.template.description]), [
      ['support', 'Mine.'], ['support-2', 'Theirs.'], ['extra', 'Extra.'],
    ]);
    assert.match(stored.templates[1].source, /^support-2:\n/, 'the YAML of the renamed copy carries its new name');

    await importFile(dialog, 'theirs.yaml', v2);
    await group.getByRole('button', byName('Replace them')).click();
    await dialog.getByRole('status').filter({ hasText: '(2 replaced a prompt with the same name)' }).waitFor();
    stored = await userPrompts(page);
    assert.deepEqual(stored.templates.map((x) => [x.template.key, x.template.description]), [
      ['support', 'Theirs.'], ['support-2', 'Theirs.'], ['extra', 'Extra.'],
    ]);
  });
});

test('a chat whose system prompt was edited is never started over: a role change opens a new chat', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    await page.getByRole('button', byName('Edit system prompt')).click();
    const dialog = page.getByRole('dialog', byName('System prompt'));
    await dialog.getByRole('textbox', byName('System prompt')).fill('My carefully written prompt.');
    await dialog.getByRole('button', byName('Save')).click();
    await dialog.waitFor({ state: 'hidden' });
    const first = await openSession(page);
    assert.equal(first.prompt.system_edited, true);

    await roleSelect(page).selectOption('builtin:coder');
    await poll(async () => (await openSession(page)).id !== first.id, { message: 'a new chat for the new role' });
    assert.equal((await openSession(page)).prompt.key, 'coder');
    const kept = await storedChat(page, first.id);
    assert.equal(kept.messages[0].content, 'My carefully written prompt.', 'the edited chat is kept as it was');
  });
});

test('sending right after a role change waits for the new prompt (slow dialogs module)', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await setup(page);
    // A user template in storage, and a dialogs module that arrives late.
    await page.evaluate(() => localStorage.setItem('satori.prompts', JSON.stringify({
      v: 1,
      templates: [{ source: 'late:\n  version: 1\n  description: Late.\n  system: Late prompt.\n',
        template: { key: 'late', version: 1, description: 'Late.', system: [{ source: { text: 'Late prompt.' } }] } }],
    })));
    await reload(page);
    await page.route('**/dialogs-*/**', async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    await roleSelect(page).selectOption('user:late');
    const body = await sendAndCapture(page, 'Right away');
    assert.equal(body.messages[0].content, 'Late prompt.', 'the message went out with the new role');
    assert.equal((await openSession(page)).prompt.key, 'late');
  });
});
