// Browser helpers for the end-to-end tests (playwright-core driving the system Chromium).
//
// Everything here addresses the UI by the accessible names of the UI contract (see
// tests/e2e/README.md); names are matched exactly (`exact: true`), because Playwright's default
// is a case-insensitive substring match ("Send" would also match "Save and send").
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { artifactsDir, chromiumPath } from './env.mjs';

export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  // A desktop with a mouse, as most people meet Satori: headless Chromium reports no pointing
  // device, so `(hover: hover)` would never match and what shows on hover would not be tested.
  '--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4',
];

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Launches Chromium (new headless mode, passed as an argument: `headless: true` would add `--headless`). */
export async function launch() {
  const executablePath = chromiumPath();
  if (!fs.existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}: run scripts/setup.sh (installs the Debian chromium package) or set SATORI_CHROMIUM`,
    );
  }
  return chromium.launch({ executablePath, headless: false, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/**
 * Opens `url` in a fresh browser context (empty storage) and records what the page does.
 * `contextOptions` go to `browser.newContext` (e.g. `{ colorScheme: 'dark' }`).
 * Returns { context, page, requests, responses, consoleMessages, consoleErrors, pageErrors,
 *           dialogAlerts, close() }.
 * Every dialog (alert/confirm/prompt) is recorded and dismissed: in these tests any dialog means
 * page script ran that should not have.
 */
export async function openApp(browser, url, { waitReady = true, contextOptions = {} } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
  context.setDefaultTimeout(15_000);
  const origin = new URL(url).origin;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin }).catch(() => {});
  const page = await context.newPage();
  const app = {
    context,
    page,
    url,
    origin,
    requests: [], // every request URL, from any page/worker of the context
    responses: [], // { url, status }
    consoleMessages: [], // { type, text }
    consoleErrors: [],
    pageErrors: [],
    dialogAlerts: [], // { type, message }
    async close() {
      await context.close().catch(() => {});
    },
  };
  context.on('request', (req) => app.requests.push(req.url()));
  context.on('response', (res) => app.responses.push({ url: res.url(), status: res.status() }));
  page.on('console', (msg) => {
    const entry = { type: msg.type(), text: msg.text() };
    app.consoleMessages.push(entry);
    if (entry.type === 'error') app.consoleErrors.push(entry.text);
  });
  page.on('pageerror', (err) => app.pageErrors.push(String(err && err.stack ? err.stack : err)));
  page.on('dialog', async (dialog) => {
    app.dialogAlerts.push({ type: dialog.type(), message: dialog.message() });
    await dialog.dismiss().catch(() => {});
  });
  await page.goto(url, { waitUntil: 'load' });
  if (waitReady) await waitReady_(page);
  return app;
}

async function waitReady_(page) {
  // The app is a wasm bundle; it is ready once the composer exists.
  await messageBox(page).waitFor({ state: 'visible', timeout: 30_000 });
}

/** Reloads and waits for the app to be ready again. */
export async function reload(page) {
  await page.reload({ waitUntil: 'load' });
  await waitReady_(page);
}

/**
 * Runs `fn(app)` with a fresh app page; on failure saves a screenshot + logs under
 * tests/e2e/artifacts/ and appends the page's errors to the error message; always closes the context.
 * Fails on any Content-Security-Policy violation the page reported. `contextOptions` and
 * `waitReady` (false: do not wait for the English composer) as in openApp.
 */
export async function withApp(browser, url, t, fn, { contextOptions, waitReady } = {}) {
  const app = await openApp(browser, url, { contextOptions, waitReady });
  try {
    const result = await fn(app);
    // The app must run under its Content-Security-Policy without tripping it: a violation means
    // either our own code needs something the policy forbids, or hostile content got through.
    const violations = app.consoleMessages.filter((m) => /Content Security Policy/i.test(m.text));
    if (violations.length) {
      throw new Error(`CSP violations:\n  ${violations.map((v) => v.text).join('\n  ')}`);
    }
    return result;
  } catch (err) {
    await saveArtifacts(app, t?.name ?? 'test').catch(() => {});
    if (err && typeof err === 'object' && typeof err.message === 'string') {
      const extra = [];
      if (app.pageErrors.length) extra.push(`page errors:\n  ${app.pageErrors.join('\n  ')}`);
      if (app.consoleErrors.length) extra.push(`console errors:\n  ${app.consoleErrors.slice(-10).join('\n  ')}`);
      if (extra.length) {
        try {
          err.message += `\n--- ${extra.join('\n--- ')}`;
        } catch {
          /* read-only message */
        }
      }
    }
    throw err;
  } finally {
    await app.close();
  }
}

export async function saveArtifacts(app, name) {
  const dir = artifactsDir();
  fs.mkdirSync(dir, { recursive: true });
  const base = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${name.replace(/[^\w.-]+/g, '_').slice(0, 80)}`);
  await app.page.screenshot({ path: `${base}.png`, fullPage: true, timeout: 5_000 }).catch(() => {});
  const html = await app.page.content().catch(() => '');
  fs.writeFileSync(`${base}.html`, html);
  fs.writeFileSync(
    `${base}.log.json`,
    JSON.stringify(
      {
        url: app.page.url(),
        pageErrors: app.pageErrors,
        console: app.consoleMessages,
        dialogs: app.dialogAlerts,
        requests: app.requests,
        responses: app.responses,
      },
      null,
      2,
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Locators (UI contract)

export const byName = (name) => ({ name, exact: true });

/** Runs `name` (Rename chat, Share chat, Export chat, Delete chat) from the header's "Chat actions" menu. */
export async function chatAction(page, name) {
  await page.getByRole('button', byName('Chat actions')).click();
  await page.getByRole('menuitem', byName(name)).click();
}
export const messageBox = (page) => page.getByRole('textbox', byName('Message'));
export const sendButton = (page) => page.getByRole('button', byName('Send'));
export const stopButton = (page) => page.getByRole('button', byName('Stop'));
export const conversation = (page) => page.getByRole('log', byName('Conversation'));
export const chatsNav = (page) => page.getByRole('navigation', byName('Chats'));
export const alerts = (page) => page.getByRole('alert');
export const articles = (page, role) => conversation(page).locator(`article[data-role="${role}"]`);
export const lastAssistant = (page) => articles(page, 'assistant').last();
export const lastUser = (page) => articles(page, 'user').last();

/**
 * Every message of the open chat, top to bottom, as a reader sees them: a long chat draws only
 * the messages near the view, so this scrolls the conversation from its first message to its
 * last, half a view at a time, collecting what is drawn. Returns { messages: [{ id, role, text }],
 * mostDrawn } (the most articles drawn at once along the way).
 */
export async function everyMessage(page) {
  return conversation(page).evaluate(async (log) => {
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
    const seen = new Map();
    let mostDrawn = 0;
    log.scrollTop = 0;
    await frames();
    await frames();
    for (let guard = 0; guard < 20000; guard++) {
      const drawn = log.querySelectorAll(':scope > article');
      mostDrawn = Math.max(mostDrawn, drawn.length);
      for (const a of drawn) {
        if (!seen.has(a.dataset.message)) {
          seen.set(a.dataset.message, { id: a.dataset.message, role: a.dataset.role, text: a.querySelector('.content')?.textContent ?? '' });
        }
      }
      if (log.scrollTop + log.clientHeight >= log.scrollHeight - 1) break;
      log.scrollTop += log.clientHeight / 2;
      await frames();
    }
    return { messages: [...seen.values()], mostDrawn };
  });
}

/** A chat entry (button or link) in the sidebar, by exact title. */
export function chatEntry(page, title) {
  const nav = chatsNav(page);
  return nav.getByRole('button', byName(title)).or(nav.getByRole('link', byName(title)));
}

/**
 * The rendered answer text of a message article: the innerText of its `.content` element(s),
 * leaving out anything inside a `<details>` (the collapsed reasoning). Runs in the page.
 */
export function answerTextInPage(article) {
  const parts = [];
  for (const c of article.querySelectorAll('.content')) {
    if (c.closest('details')) continue;
    let text = c.innerText;
    for (const d of c.querySelectorAll('details')) text = text.replace(d.innerText, '');
    text = text.trim();
    if (text) parts.push(text);
  }
  return parts.join('\n');
}

/** Answer text of a message article locator (see answerTextInPage). */
export async function textOf(article) {
  return article.evaluate(answerTextInPage);
}

export async function statusOf(article) {
  return article.getAttribute('data-status');
}

// ---------------------------------------------------------------------------------------------
// Waiting

/** Polls `fn` until it returns a truthy value (returned); throws after `timeout` ms. */
export async function poll(fn, { timeout = 10_000, interval = 50, message = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  let lastErr;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) {
      const detail = lastErr ? ` (last error: ${lastErr.message.split('\n')[0]})` : ` (last value: ${JSON.stringify(last)})`;
      throw new Error(`timed out after ${timeout} ms waiting for ${message}${detail}`);
    }
    await sleep(interval);
  }
}

/** Waits until the article's data-status is one of `statuses`; returns it. */
export async function waitForStatus(article, statuses, { timeout = 15_000 } = {}) {
  const wanted = [].concat(statuses);
  return poll(
    async () => {
      const s = await article.getAttribute('data-status', { timeout: 1_000 });
      return wanted.includes(s) ? s : false;
    },
    { timeout, message: `data-status in [${wanted.join(', ')}]` },
  );
}

/**
 * Waits until the app is idle: "Send" visible, "Stop" gone, and no message streaming.
 * (Right after a send the app may not have switched to streaming yet; callers wait for the
 * message articles first.)
 */
export async function waitIdle(page, { timeout = 30_000 } = {}) {
  await sendButton(page).waitFor({ state: 'visible', timeout });
  await stopButton(page).waitFor({ state: 'hidden', timeout });
  await conversation(page).locator('article[data-status="streaming"]').first().waitFor({ state: 'detached', timeout });
  await sendButton(page).waitFor({ state: 'visible', timeout });
}

/**
 * Types `text` into "Message" and presses Enter; waits until a new last user message is drawn and
 * the app either shows a new last assistant message, an alert, or finished (so a following
 * waitIdle cannot pass before the send started). Messages are told apart by id, not counted: a
 * long chat draws only the messages near the view.
 */
export async function sendMessage(page, text, { timeout = 15_000 } = {}) {
  const lastId = (role) => articles(page, role).evaluateAll((els) => els.at(-1)?.dataset.message ?? null);
  const userBefore = await lastId('user');
  const assistantBefore = await lastId('assistant');
  const alertsBefore = await alerts(page).count();
  const box = messageBox(page);
  await box.fill(text);
  await box.press('Enter');
  await poll(async () => ((await lastId('user')) ?? userBefore) !== userBefore, {
    timeout,
    message: `a new user message after sending ${JSON.stringify(text)}`,
  });
  await poll(
    async () =>
      ((await lastId('assistant')) ?? assistantBefore) !== assistantBefore ||
      (await alerts(page).count()) > alertsBefore ||
      (await stopButton(page).isVisible()),
    { timeout, message: 'the app to start answering (assistant message, Stop button or alert)' },
  );
}

// ---------------------------------------------------------------------------------------------
// Settings

/**
 * Opens Settings, fills the given fields by their accessible names and saves.
 * Fields left undefined are not touched. `provider` defaults to "Custom" (selected first, so a
 * provider preset cannot overwrite the base URL / model typed afterwards).
 */
export async function configure(
  page,
  {
    provider = 'Custom', baseUrl, model, apiKey, temperature, maxTokens, stallSeconds,
    contextWindow, replyReserve, keepRecentRounds, minimumRounds, summarize, summarizerModel,
    priceIn, priceOut, currency, imageRounds, seesImages,
  } = {},
) {
  await page.getByRole('button', byName('Settings')).first().click();
  const dialog = page.getByRole('dialog', byName('Settings'));
  await dialog.waitFor({ state: 'visible' });
  if (provider !== undefined && provider !== null) {
    await dialog.getByRole('combobox', byName('Provider')).selectOption({ label: provider });
  }
  const fill = async (label, value) => {
    if (value === undefined || value === null) return;
    await dialog.getByLabel(label, { exact: true }).fill(String(value));
  };
  await fill('API base URL', baseUrl);
  await fill('API key', apiKey);
  await fill('Model', model);
  await fill('Temperature', temperature);
  await fill('Max reply tokens', maxTokens);
  await fill('Stall timeout (seconds)', stallSeconds);
  await fill('Context window', contextWindow);
  await fill('Reply reserve', replyReserve);
  await fill('Keep recent rounds', keepRecentRounds);
  await fill('Minimum rounds', minimumRounds);
  await fill('Summarizer model', summarizerModel);
  await fill('Input price per 1M tokens', priceIn);
  await fill('Output price per 1M tokens', priceOut);
  await fill('Currency', currency);
  await fill('Keep images for the last N rounds', imageRounds);
  if (seesImages !== undefined) {
    await dialog.getByRole('checkbox', byName('Sees images')).setChecked(seesImages);
  }
  if (summarize !== undefined) {
    await dialog.getByRole('checkbox', byName('Summarize old turns')).setChecked(summarize);
  }
  await dialog.getByRole('button', byName('Save')).click();
  await dialog.waitFor({ state: 'hidden' });
}

// ---------------------------------------------------------------------------------------------
// Streaming observation

/**
 * Starts recording, inside the page, every distinct answer text of the last assistant article
 * (on each DOM mutation, via MutationObserver — no polling gaps). Returns `stop()` which resolves
 * to the recorded list [{ text, status }] in order of appearance.
 */
export async function recordAssistantTexts(page) {
  const install = (answerText) => {
    const rec = { entries: [], observer: null };
    const read = () => {
      const arts = document.querySelectorAll('[role="log"] article[data-role="assistant"]');
      const a = arts[arts.length - 1];
      if (!a) return;
      const text = answerText(a);
      const status = a.getAttribute('data-status');
      const prev = rec.entries[rec.entries.length - 1];
      if (!prev || prev.text !== text || prev.status !== status) rec.entries.push({ text, status });
    };
    rec.observer = new MutationObserver(read);
    rec.observer.observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true });
    read();
    window.__satoriE2eRecorder = rec;
  };
  await page.evaluate(`(${install})(${answerTextInPage})`);
  return async () =>
    page.evaluate(() => {
      const rec = window.__satoriE2eRecorder;
      if (!rec) return [];
      rec.observer.disconnect();
      return rec.entries;
    });
}

/** Distinct non-empty texts seen while streaming that differ from `finalText`. */
export function partialTexts(entries, finalText) {
  const seen = [];
  for (const e of entries) {
    const t = e.text.trim();
    if (t && t !== finalText.trim() && !seen.includes(t)) seen.push(t);
  }
  return seen;
}

// ---------------------------------------------------------------------------------------------
// Sidebar

/** [{ title, current }] for each chat in the "Chats" navigation, in display order. */
export async function chatList(page) {
  return chatsNav(page).evaluate((nav) =>
    [...nav.querySelectorAll('li')]
      .map((li) => li.querySelector('a, button'))
      .filter(Boolean)
      .map((el) => ({
        title: (el.getAttribute('aria-label') || el.innerText || '').trim(),
        current: el.getAttribute('aria-current'),
      })),
  );
}

/** All localStorage entries of the page as { key: value }. */
export async function localStorageEntries(page) {
  return page.evaluate(() => {
    const out = {};
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      out[k] = localStorage.getItem(k);
    }
    return out;
  });
}

/**
 * Chat `id` from localStorage entries, as Satori stores it (crates/core/src/persist.rs): a head record
 * `satori.session.<id>` (version 2: every field but the messages, and how many `parts`) and its
 * messages in `satori.part.<id>.<k>`, runs of 32; an older single record (version 1) as it is.
 * `null` when there is none. Throws on a missing part.
 */
export function chatFrom(entries, id) {
  const text = entries[`satori.session.${id}`];
  if (text == null) return null;
  const chat = JSON.parse(text);
  if (chat.v === 2 && Number.isInteger(chat.parts)) {
    chat.messages = [];
    for (let k = 0; k < chat.parts; k++) {
      const part = entries[`satori.part.${id}.${k}`];
      if (part == null) throw new Error(`chat ${id}: part ${k} is missing`);
      chat.messages.push(...JSON.parse(part));
    }
  }
  return chat;
}

/** Stored chat `id` (default: the chat list's active one), read whole ({@link chatFrom}). */
export async function storedChat(page, id) {
  const all = await localStorageEntries(page);
  const index = JSON.parse(all['satori.index']);
  return chatFrom(all, id ?? index.active ?? index.sessions[0].id);
}

/**
 * Store `chat` (as read by {@link chatFrom}, perhaps changed) as one version-1 record, the way
 * an earlier Satori wrote chats, removing its parts: a test's stand-in for months of use.
 */
export async function writeChat(page, chat) {
  const { parts, count, ...rest } = chat;
  const record = JSON.stringify({ ...rest, v: 1 });
  await page.evaluate(({ id, record }) => {
    for (const k of Object.keys(localStorage)) if (k.startsWith(`satori.part.${id}.`)) localStorage.removeItem(k);
    localStorage.setItem(`satori.session.${id}`, record);
  }, { id: chat.id, record });
}

/** The stored record of the open chat. */
export async function openSession(page) {
  return storedChat(page);
}

/** Opens the "Prompts" dialog; returns it. */
export async function openPrompts(page) {
  await page.getByRole('button', byName('Prompts')).click();
  const dialog = page.getByRole('dialog', byName('Prompts'));
  await dialog.waitFor({ state: 'visible' });
  return dialog;
}

/** Picks a YAML file named `name` holding `text` in the Prompts dialog's "Import prompts". */
export async function importPrompts(dialog, name, text) {
  await dialog.getByLabel('Import prompts').setInputFiles({ name, mimeType: 'application/yaml', buffer: Buffer.from(text) });
}
