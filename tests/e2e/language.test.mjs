// The interface in Simplified Chinese: the table (src/web/zh-CN.json) and the translator
// (src/web/translate.js) on their own; a browser in zh-CN gets Chinese on the first visit; the
// main flows walked by their Chinese names with no English left outside the documented list; the
// "Language" select changes the language at once, both ways, and is remembered; nothing clipped
// at 390 px in either language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useApp } from './support/app.mjs';
import { repoRoot } from './support/env.mjs';
import { byName, configure, sendMessage, storedChat, waitIdle, waitForStatus, withApp, writeChat, poll } from './support/browser.mjs';

const e2e = useApp();
const TABLE = JSON.parse(fs.readFileSync(path.join(repoRoot, 'src', 'web', 'zh-CN.json'), 'utf8'));
const translator = await import(path.join(repoRoot, 'src', 'web', 'translate.js'));

// English words the Chinese interface keeps: names of things, protocols, keys on the keyboard.
const ALLOWED = new Set([
  'Satori', 'API', 'URL', 'JSON', 'YAML', 'Markdown', 'MCP', 'OpenAI', 'llama', 'cpp', 'Ollama',
  'LM', 'Studio', 'DeepSeek', 'Qwen', 'Moonshot', 'OpenRouter', 'SmolLM', 'HTTP', 'HTTPS', 'http',
  // The in-browser model's name ("SmolLM2-135M").
  'SmolLM2', 'M',
  'https', 'Token', 'Esc', 'Enter', 'Shift', 'Ctrl', 'GGUF', 'ID', 'KB', 'MB', 's', 'Bearer',
  'ChatGPT', 'NextChat', 'BetterChatGPT', 'Claude', 'Open', 'WebUI', 'LibreChat', 'zip', 'localhost', 'v', 'api', 'example', 'com',
  'DashScope', 'Streamable', 'CORS', 'Authorization', 'Safari', 'Chrome', 'Firefox',
  // Sync: the protocol and the servers it names.
  'WebDAV', 'Nextcloud', 'ownCloud', 'Synology', 'Apache',
  // A template variable's value as the template names it (“reply_language = auto”).
  'auto',
  // Currency codes (a model's price in Settings).
  'USD', 'CNY', 'EUR',
]);

test('the Chinese table: every template has its placeholders, every value is Chinese', () => {
  const placeholders = (s) => [...s.matchAll(/\{(\d+)\}/g)].map((m) => m[1]).sort().join();
  for (const [en, zh] of Object.entries(TABLE)) {
    assert.equal(placeholders(zh), placeholders(en), `placeholders of ${JSON.stringify(en)}`);
    const kept = (zh.match(/[A-Za-z][A-Za-z’']*/g) || []).every((w) => ALLOWED.has(w));
    assert.ok(/[\u4e00-\u9fff]/.test(zh) || kept, `${JSON.stringify(en)} has a Chinese text`);
    if (placeholders(en)) {
      const letters = en.replace(/\{\d+\}/g, '').replace(/[^A-Za-z]/g, '');
      assert.ok(letters.length >= 4, `${JSON.stringify(en)}: a template needs words of its own`);
    }
    assert.equal(en, en.trim(), `${JSON.stringify(en)} is trimmed`);
    assert.equal(zh, zh.trim(), `the text for ${JSON.stringify(en)} is trimmed`);
  }
});

test('the translator: exact texts, templates (most specific first), parts translated in turn', () => {
  const table = translator.compile({
    Send: '发送',
    Prompts: '提示词',
    'it is no longer in storage': '它已不在存储中',
    '{0} could not be opened: {1}': '无法打开{0}：{1}',
    'Imported {0} prompts from {1}.': '已从 {1} 导入 {0} 个提示词。',
    'Imported {0} prompts from {1} ({2} replaced).': '已从 {1} 导入 {0} 个提示词（替换了 {2} 个）。',
    'Write {{ for a brace.': '写 {{ 表示花括号。',
    'Use `{name}` or {0} (in {1}).': '使用 `{name}` 或 {0}（在 {1} 中）。',
    'The file was saved, but {0}.': '文件已保存，但{0}。',
    'Nothing was imported.\n{0}': '未导入任何内容。\n{0}',
    '{0}; they are not in the file': '{0}；它们未包含在文件中',
    'your prompt templates could not be read ({0})': '无法读取你的提示词模板（{0}）',
    'record is not valid: {0}': '记录无效：{0}',
    '{0} at line {1} column {2}': '{0}（第 {1} 行第 {2} 列）',
    'key must be a string': '键必须是字符串',
  });
  const cases = [
    ['Send', '发送'],
    ['  Send\n', '  发送\n'],
    ['Prompts could not be opened: it is no longer in storage', '无法打开提示词：它已不在存储中'],
    ['Imported 3 prompts from a (1).yaml (2 replaced).', '已从 a (1).yaml 导入 3 个提示词（替换了 2 个）。'],
    ['Imported 3 prompts from team.yaml.', '已从 team.yaml 导入 3 个提示词。'],
    ['Write {{ for a brace.', '写 {{ 表示花括号。'],
    ['Use `{name}` or $1 (in a.*b).', '使用 `{name}` 或 $1（在 a.*b 中）。'],
    // Several lines: line by line when each line has a translation (start-up problems, the
    // warnings of "Export all"); a template written over lines first; else the template whose
    // part spans the lines (a server's message of several lines).
    ['Send\nPrompts could not be opened: it is no longer in storage', '发送\n无法打开提示词：它已不在存储中'],
    [
      'The file was saved, but it is no longer in storage.\nThe file was saved, but it is no longer in storage.',
      '文件已保存，但它已不在存储中。\n文件已保存，但它已不在存储中。',
    ],
    ['Nothing was imported.\nit is no longer in storage', '未导入任何内容。\n它已不在存储中'],
    ['Prompts could not be opened: first line\nsecond line', '无法打开提示词：first line\nsecond line'],
    ['Unknown words\nmore of them', null],
    // An error inside an error inside a sentence, five deep (what "Export all" says of
    // unreadable templates).
    [
      'The file was saved, but your prompt templates could not be read (record is not valid: key must be a string at line 1 column 9); they are not in the file.',
      '文件已保存，但无法读取你的提示词模板（记录无效：键必须是字符串（第 1 行第 9 列））；它们未包含在文件中。',
    ],
    ['Unknown words', null],
    ['42 · 7', null],
  ];
  for (const [text, expected] of cases) assert.equal(translator.translate(text, table), expected, text);
});

/** Every English word left in the page outside `translate="no"` (texts and named attributes). */
function englishLeft(page) {
  return page.evaluate((allowed) => {
    const ours = '[translate="yes"], .copy-code, .md-task';
    const untranslated = (el) => {
      if (!el || el.closest(ours)) return false;
      const marked = el.closest('[translate]');
      return !!marked && marked.getAttribute('translate') === 'no';
    };
    const left = new Map();
    const check = (text, where) => {
      text = text.replace(/https?:\/\/\S+/g, ''); // addresses are addresses
      text = text.replace(/\bsatori(?:\.[\w-]+)+/g, ''); // and storage keys are names
      for (const word of text.match(/[A-Za-z][A-Za-z0-9_’']*/g) || []) {
        // Identifiers (template variables) are names, not words.
        if (!allowed.includes(word) && !word.includes('_')) left.set(`${word} — ${text.trim().slice(0, 80)}`, where);
      }
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) {
        const el = n.parentElement;
        if (['SCRIPT', 'STYLE', 'TEXTAREA'].includes(el.tagName) || untranslated(el)) continue;
        check(n.data, el.tagName);
      } else if (!untranslated(n)) {
        for (const a of ['aria-label', 'title', 'placeholder', 'label']) {
          if (n.hasAttribute(a)) check(n.getAttribute(a), `${n.tagName}[${a}]`);
        }
      }
    }
    return [...left.keys()];
  }, [...ALLOWED]);
}

/** Buttons, selects and labels whose text does not fit at the current width (visually hidden
 * labels, 1 px wide, aside). */
function clipped(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('button, select, label')]
      .filter((b) => b.checkVisibility() && b.clientWidth > 1 && b.scrollWidth > b.clientWidth + 1)
      .map((b) => `${b.tagName} “${(b.textContent || '').trim().slice(0, 40)}” ${b.scrollWidth}>${b.clientWidth}`),
  );
}

async function configureInChinese(page) {
  await page.getByRole('button', byName('设置')).first().click();
  const dialog = page.getByRole('dialog', byName('设置'));
  await dialog.waitFor();
  await dialog.getByRole('combobox', byName('服务商')).selectOption({ label: TABLE.Custom });
  await dialog.getByLabel('API 地址', { exact: true }).fill(e2e.fake.baseUrl);
  await dialog.getByLabel('模型', { exact: true }).fill('fake-small');
  await dialog.getByRole('button', byName('保存')).click();
  await dialog.waitFor({ state: 'hidden' });
}

test('money for the page\'s language: below a currency\'s smallest unit to two significant digits, an unknown code written out', async () => {
  const { formatMoney } = await import(path.join(repoRoot, 'src', 'web', 'i18n.js'));
  const cases = [
    // language, amount, currency, shown
    ['en', 0.007, 'USD', '$0.007'],
    ['en', 1234.5, 'USD', '$1,234.50'],
    ['en', 0, 'USD', '$0.00'],
    // A yen has no cents: 0.4 yen is below its unit, 12.3 yen is not.
    ['en', 0.4, 'JPY', '¥0.4'],
    ['en', 12.3, 'JPY', '¥12'],
    ['en', 0.00123, 'CNY', 'CN¥0.0012'],
    ['zh-CN', 0.007, 'CNY', '¥0.007'],
    ['zh-CN', 3.5, 'USD', 'US$3.50'],
    ['en', 0.5, 'XYZ1', '0.5 XYZ1'],
  ];
  const was = globalThis.document;
  try {
    for (const [lang, amount, currency, want] of cases) {
      globalThis.document = { documentElement: { lang } };
      assert.equal(formatMoney(amount, currency), want, `${amount} ${currency} in ${lang}`);
    }
  } finally {
    globalThis.document = was;
  }
});

test('a browser in Chinese: the first visit is in Chinese; the main flows by their Chinese names; no English left', async (t) => {
  await withApp(
    e2e.browser,
    e2e.web.url,
    t,
    async ({ page }) => {
      await page.getByRole('textbox', byName('消息')).waitFor();
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
      assert.deepEqual(await englishLeft(page), [], 'the start page');
      e2e.fake.reset();
      await configureInChinese(page);
      // What people write is never translated, even when it is a word of the interface.
      await page.getByRole('textbox', byName('消息')).fill('Settings');
      await page.getByRole('button', byName('发送')).click();
      await page.getByRole('button', byName('发送')).waitFor({ timeout: 30_000 });
      const mine = page.locator('article[data-role="user"] .content').last();
      assert.equal((await mine.textContent()).trim(), 'Settings');
      await page.getByRole('textbox', byName('消息')).fill('你好！Order ORD-42 的状态？');
      await page.getByRole('button', byName('发送')).click();
      await page.getByRole('button', byName('发送')).waitFor({ timeout: 30_000 }); // idle again
      const log = page.getByRole('log', byName('对话内容'));
      await waitForStatus(log.locator('article[data-role="assistant"]').last(), 'complete');
      await log.getByText('ORD-42').first().waitFor();
      assert.deepEqual(await englishLeft(page), [], 'after a reply');
      // The dialogs of the lazy modules are translated too.
      for (const [button, dialogName] of [
        ['提示词', '提示词'],
        ['搜索对话', '搜索对话'],
        ['导出对话', '导出对话'],
        ['分享对话', '分享对话'],
        ['设置', '设置'],
      ]) {
        // Export and Share are in "Chat actions" (对话操作).
        if (button === '导出对话' || button === '分享对话') {
          await page.getByRole('button', byName('对话操作')).click();
          assert.deepEqual(await englishLeft(page), [], 'the “对话操作” menu');
          await page.getByRole('menuitem', byName(button)).click();
        } else {
          await page.getByRole('button', byName(button)).first().click();
        }
        const dialog = page.getByRole('dialog', byName(dialogName));
        await dialog.waitFor();
        assert.deepEqual(await englishLeft(page), [], `the “${dialogName}” dialog`);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
      }
      // A server error, said in Chinese.
      e2e.fake.enqueue({ status: 401, body: { error: { message: 'Incorrect API key provided' } } });
      await page.getByRole('textbox', byName('消息')).fill('再来一次');
      await page.getByRole('button', byName('发送')).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      assert.match(await alert.innerText(), /服务器拒绝了 API 密钥（401）/);
      assert.deepEqual(
        (await englishLeft(page)).filter((w) => !w.includes('Incorrect API key provided')),
        [],
        'the alert (the server’s own words are quoted as they are)',
      );
      // Phone width: nothing clipped.
      await page.setViewportSize({ width: 390, height: 844 });
      assert.deepEqual(await clipped(page), [], 'nothing clipped at 390 px in Chinese');
    },
    { contextOptions: { locale: 'zh-CN' }, waitReady: false },
  );
});

test('"Language" changes the interface at once, both ways, and is remembered; English names stay as they were', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    await sendMessage(page, 'Hello there');
    await waitIdle(page);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    await page.getByRole('button', byName('Settings')).first().click();
    let dialog = page.getByRole('dialog', byName('Settings'));
    await dialog.getByRole('combobox', byName('Language')).selectOption('zh-CN');
    // At once: the dialog itself and the page behind it.
    dialog = page.getByRole('dialog', byName('设置'));
    await dialog.getByRole('combobox', byName('语言')).waitFor();
    await page.getByRole('button', byName('发送')).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
    await dialog.getByRole('button', byName('取消')).click();
    // Remembered.
    await page.reload({ waitUntil: 'load' });
    await page.getByRole('textbox', byName('消息')).waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('satori.language')), 'zh-CN');
    assert.deepEqual(await englishLeft(page), []);
    // And back to English: every name as before.
    await page.getByRole('button', byName('设置')).first().click();
    dialog = page.getByRole('dialog', byName('设置'));
    await dialog.getByRole('combobox', byName('语言')).selectOption('en');
    dialog = page.getByRole('dialog', byName('Settings'));
    await dialog.getByRole('combobox', byName('Language')).waitFor();
    await dialog.getByRole('button', byName('Cancel')).click();
    for (const name of ['Send', 'New chat', 'Settings', 'Chat actions', 'Search chats']) {
      await page.getByRole('button', byName(name)).first().waitFor();
    }
    await page.getByRole('button', byName('Chat actions')).click();
    for (const name of ['Rename chat', 'Share chat', 'Export chat', 'Delete chat']) {
      await page.getByRole('menuitem', byName(name)).waitFor();
    }
    await page.keyboard.press('Escape');
    await page.getByRole('textbox', byName('Message')).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    await page.setViewportSize({ width: 390, height: 844 });
    assert.deepEqual(await clipped(page), [], 'nothing clipped at 390 px in English');
  });
});

/** Chat `s` (one question and its answer, as stored) with every kind of message the
 * conversation draws after them: a second answer with reasoning and the server's usage, a pinned
 * question, a tool call and its result, an excluded question, a stopped, a truncated and a broken
 * reply. */
function everyKindOfMessage(s) {
  const question = s.messages.find((m) => m.role === 'user');
  const msg = (id, parent, role, content, extra = {}) =>
    ({ id, parent, role, content, status: 'complete', created_at: 1_700_000_000_000, ...extra });
  const usage = { prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290 };
  s.messages.push(
    msg('a1b', question.id, 'assistant', 'Another answer, **bold**.', { reasoning: 'Thinking it over.', usage }),
    msg('u2', 'a1b', 'user', 'Look up order ORD-7.', { pinned: true }),
    msg('ac', 'u2', 'assistant', '', { tool_calls: [{ index: 0, id: 'c1', name: 'lookup_order', arguments: '{"id":"ORD-7"}' }] }),
    msg('t1', 'ac', 'tool', '{"status":"shipped"}', { tool_call_id: 'c1' }),
    msg('a2', 't1', 'assistant', 'It has shipped.', { usage, finish_reason: 'length', note: 'Truncated: the reply reached the max tokens limit.' }),
    msg('u3', 'a2', 'user', 'An aside.', { excluded: true }),
    msg('a3', 'u3', 'assistant', 'Partial', { status: 'stopped' }),
    msg('u4', 'a3', 'user', 'Go on.'),
    msg('a4', 'u4', 'assistant', 'Cut off', { status: 'incomplete', note: 'the connection broke before the reply ended' }),
  );
  s.leaf = 'a4';
  return s;
}

test('the first screen needs only the first part of the table; the rest comes after the first paint', async (t) => {
  await withApp(
    e2e.browser,
    e2e.web.url,
    t,
    async ({ page }) => {
      await page.getByRole('textbox', byName('消息')).waitFor();
      e2e.fake.reset();
      await configureInChinese(page);
      await page.getByRole('textbox', byName('消息')).fill('Hello');
      await page.getByRole('button', byName('发送')).click();
      await waitForStatus(page.locator('article[data-role="assistant"]').last(), 'complete');
      await writeChat(page, everyKindOfMessage(await storedChat(page)));
      // The rest of the table is held back; the page notes when its composer is drawn.
      let release;
      const held = new Promise((done) => { release = done; });
      await page.route(/\/lang\/zh-cn-more-[0-9a-f]{16}\.json$/, async (route) => {
        await held;
        await route.continue();
      });
      await page.addInitScript(() => {
        new MutationObserver((_, watching) => {
          if (document.querySelector('textarea')) {
            window.__drawn = performance.now();
            watching.disconnect();
          }
        }).observe(document, { childList: true, subtree: true });
      });
      await page.reload({ waitUntil: 'load' });
      await page.getByRole('textbox', byName('消息')).waitFor();
      await page.getByRole('button', byName('下一个版本')).or(page.getByRole('button', byName('上一个版本'))).first().waitFor();
      await page.locator('article[data-status="incomplete"]').waitFor();
      assert.deepEqual(await englishLeft(page), [], 'the first screen, with the rest of the table held back');
      // A dialog opened meanwhile gets its texts when the rest arrives.
      await page.getByRole('button', byName('设置')).first().click();
      const dialog = page.getByRole('dialog', byName('设置'));
      await dialog.waitFor();
      release();
      await dialog.getByRole('combobox', byName('服务商')).waitFor();
      await dialog.getByLabel('模型', { exact: true }).waitFor();
      await poll(async () => (await englishLeft(page)).length === 0, { message: 'the Settings dialog in Chinese' });
      const { drawn, rest } = await page.evaluate(() => ({
        drawn: window.__drawn,
        rest: performance.getEntriesByType('resource').find((e) => e.name.includes('/lang/zh-cn-more-'))?.startTime,
      }));
      assert.ok(drawn !== undefined && rest !== undefined, 'both moments were seen');
      assert.ok(rest > drawn, `the rest was asked for after the app drew (${rest} > ${drawn})`);
    },
    { contextOptions: { locale: 'zh-CN', serviceWorkers: 'block' }, waitReady: false },
  );
});

test('texts Satori puts together are Chinese too: start-up problems, the warnings of "Export all"', async (t) => {
  await withApp(
    e2e.browser,
    e2e.web.url,
    t,
    async ({ page }) => {
      await page.getByRole('textbox', byName('消息')).waitFor();
      // An unreadable chat list and unreadable settings: two problems in one alert.
      await page.evaluate(() => {
        localStorage.setItem('satori.index', '{"v":1,"sessions":[{"id": broken');
        localStorage.setItem('satori.settings', '{broken');
        localStorage.setItem('satori.prompts', '{"v":1, broken');
      });
      await page.reload({ waitUntil: 'load' });
      const alert = page.getByRole('alert').first();
      await alert.waitFor();
      await poll(async () => /聊天列表|对话列表/.test(await alert.innerText()) && /设置/.test(await alert.innerText()), {
        message: 'both problems in Chinese',
      });
      assert.deepEqual(await englishLeft(page), [], 'the start-up problems');
      // "Export all" with unreadable templates: the file is saved, the warning says what is missing.
      await alert.getByRole('button', byName('关闭')).click();
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', byName('全部导出')).click()]);
      assert.ok(await file.path());
      const warning = page.getByRole('alert').filter({ hasText: '文件已保存' });
      await warning.waitFor();
      assert.match(await warning.innerText(), /它们未包含在文件中/);
      assert.deepEqual(await englishLeft(page), [], 'the warning of Export all');
    },
    { contextOptions: { locale: 'zh-CN' }, waitReady: false },
  );
});

test('what an import skipped is said in Chinese: the count, each reason, an untitled chat with its part; a title stays as it is', async (t) => {
  await withApp(
    e2e.browser,
    e2e.web.url,
    t,
    async ({ page }) => {
      await page.getByRole('textbox', byName('消息')).waitFor();
      const node = (id, parent, children, role, text) => ({ id, parent, children, message: { id, author: { role }, create_time: 1764581400, content: { content_type: 'text', parts: [text] } } });
      const good = { title: 'Kept', conversation_id: 'k-1', create_time: 1764581400, current_node: 'a', mapping: { q: node('q', null, ['a'], 'user', 'Hi'), a: node('a', 'q', [], 'assistant', 'Hello') } };
      const part = (name, list) => ({ name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(list)) });
      await page.getByRole('button', byName('导入')).click();
      const dialog = page.getByRole('dialog', byName('导入对话'));
      await dialog.waitFor();
      await dialog.getByLabel('导入文件').setInputFiles([
        part('conversations-000.json', [good, { title: 'Settings', mapping: 'not an object' }]),
        part('conversations-001.json', [{ ...good, conversation_id: 'k-2', title: 'Kept too' }, { title: '', conversation_id: 'x' }]),
      ]);
      await dialog.getByRole('button', byName('导入 2 个对话')).waitFor();
      const status = await dialog.getByRole('status').innerText();
      assert.match(status, /2 个对话无法读取，已跳过：/, status);
      assert.match(status, /"Settings" \(mapping：缺失或不是对象\)/, 'a title is never translated, its reason is');
      assert.match(status, /conversations-001\.json 中的未命名对话 #2 \(mapping：缺失或不是对象\)/, status);
      // Field names and the files' names are names; nothing else is English.
      assert.deepEqual((await englishLeft(page)).filter((w) => !/^(mapping|conversations|json|Settings) — /.test(w)), [], status);
    },
    { contextOptions: { locale: 'zh-CN' }, waitReady: false },
  );
});

test('another open tab follows a language change', async (t) => {
  await e2e.open(t, async ({ page, context }) => {
    const other = await context.newPage();
    await other.goto(e2e.web.url);
    await other.getByRole('textbox', byName('Message')).waitFor();
    await page.getByRole('button', byName('Settings')).first().click();
    await page.getByRole('dialog', byName('Settings')).getByRole('combobox', byName('Language')).selectOption('zh-CN');
    await other.getByRole('button', byName('发送')).waitFor();
    assert.equal(await other.evaluate(() => document.documentElement.lang), 'zh-CN');
    await page.getByRole('dialog', byName('设置')).getByRole('combobox', byName('语言')).selectOption('en');
    await other.getByRole('button', byName('Send')).waitFor();
    assert.equal(await other.evaluate(() => document.documentElement.lang), 'en');
  });
});
