// Long chats: only the messages near the view are drawn, whatever the chat's length. The chat
// opens at its latest message; every message stays reachable by scrolling, in order; what is on
// screen does not jump while older messages are drawn above it; "Jump to latest" returns to the
// end; a search result far up is drawn and shown; Ctrl+F offers "Search chats" (find in page
// cannot see what is not drawn); an edit in progress survives its message scrolling away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './support/app.mjs';
import {
  byName,
  configure,
  conversation,
  everyMessage,
  lastUser,
  poll,
  reload,
  sendMessage,
  waitIdle,
} from './support/browser.mjs';

const e2e = useApp();
const N = 1000;

/** Message `i` of the seeded chat: prose, lists, code, Chinese; lengths vary a lot. */
function content(i) {
  const kinds = [
    () => `Question ${i}: what about item ${i}?`,
    () => `Answer ${i}.\n\n${'All of this is filler prose to make the message wrap over several lines. '.repeat(1 + (i % 7))}`,
    () => `Answer ${i} with code:\n\n\`\`\`rust\nfn f${i}() -> u32 {\n    ${i}\n}\n\`\`\`\n\nDone.`,
    () => `回答 ${i}：${'这是一段用来测试换行的中文文字。'.repeat(1 + (i % 5))}`,
    () => `Answer ${i}:\n\n- one\n- two\n- three\n\n| a | b |\n|---|---|\n| ${i} | ${i + 1} |`,
  ];
  return i % 2 === 0 ? kinds[0]() : kinds[1 + ((i >> 1) % 4)]();
}

/**
 * Seeds one chat of `n` messages (marked `needle` at message `at`) and opens the app on it — or,
 * with `elsewhere`, on another, short chat.
 */
async function seedLongChat(page, { n = N, needle = null, at = 0, elsewhere = false } = {}) {
  const messages = [];
  let parent;
  for (let i = 0; i < n; i++) {
    const text = i === at && needle ? `${content(i)} ${needle}` : content(i);
    const m = { id: `m${i}`, role: i % 2 ? 'assistant' : 'user', content: text, status: 'complete', created_at: 1764000000000 + i * 1000 };
    if (parent) m.parent = parent;
    parent = m.id;
    messages.push(m);
  }
  const chat = { v: 1, id: 'long', title: 'A long chat', role: '', created_at: 1764000000000, updated_at: 1764000000000 + n * 1000, messages, leaf: parent };
  const other = { v: 1, id: 'other', title: 'Another chat', role: '', created_at: 1764000000000, updated_at: 1764000000000, messages: [{ id: 'o1', role: 'user', content: 'Short', status: 'complete', created_at: 1764000000000 }], leaf: 'o1' };
  const sessions = [{ id: 'long', title: chat.title, updated_at: chat.updated_at }, { id: 'other', title: other.title, updated_at: other.updated_at }];
  const index = { v: 1, sessions, active: elsewhere ? 'other' : 'long' };
  await page.evaluate(([c, o, i]) => {
    localStorage.setItem('satori.session.long', c);
    localStorage.setItem('satori.session.other', o);
    localStorage.setItem('satori.index', i);
  }, [JSON.stringify(chat), JSON.stringify(other), JSON.stringify(index)]);
  await reload(page);
  // Formatted (the markdown module loaded): message heights are final.
  await conversation(page).locator(elsewhere ? 'article' : 'article .code-block').first().waitFor();
}

const drawnCount = (page) => conversation(page).locator(':scope > article').count();

/** Waits until the conversation stops moving: the same scroll position and drawn rows over
 * five frames in a row. */
async function settled(page) {
  await conversation(page).evaluate(async (log) => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const state = () => `${log.scrollTop}|${log.querySelector(':scope > article')?.dataset.message}|${log.children.length}`;
    let same = 0;
    let last = state();
    for (let i = 0; i < 600 && same < 5; i++) {
      await frame();
      const now = state();
      same = now === last ? same + 1 : 0;
      last = now;
    }
  });
}

/** Whether the article of message `id` is inside the conversation's visible box. */
async function onScreen(page, id) {
  return conversation(page).evaluate((log, id) => {
    const a = log.querySelector(`:scope > article[data-message="${id}"]`);
    if (!a) return false;
    const box = log.getBoundingClientRect();
    const r = a.getBoundingClientRect();
    return r.bottom > box.top && r.top < box.bottom;
  }, id);
}

test('a chat of 1000 messages opens at its latest message, draws only what is near the view, and every message is reachable in order', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await seedLongChat(page);
    await poll(() => onScreen(page, `m${N - 1}`), { message: 'the latest message on screen' });
    const drawn = await drawnCount(page);
    assert.ok(drawn > 0 && drawn < 80, `a few messages drawn, not ${N} (${drawn})`);
    await page.getByRole('button', byName('Jump to latest')).waitFor({ state: 'hidden' });
    const { messages, mostDrawn } = await everyMessage(page);
    assert.deepEqual(messages.map((m) => m.id), Array.from({ length: N }, (_, i) => `m${i}`), 'every message once, in order');
    assert.ok(messages[0].text.includes('Question 0'), 'the first message drawn with its text');
    assert.ok(messages[N - 1].text.includes(`${N - 1}`), 'the last message drawn with its text');
    assert.ok(mostDrawn <= 80, `never more than 80 messages drawn at once (${mostDrawn})`);
  });
});

test('what is on screen stays put while older messages are drawn above it, and "Jump to latest" returns to the end', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await seedLongChat(page);
    await poll(() => onScreen(page, `m${N - 1}`), { message: 'the latest message on screen' });
    // Scroll up 300 px at a time: the message at the top of the view moves down by exactly that,
    // never jumps, though messages above it are drawn and others dropped below.
    const jumps = await conversation(page).evaluate(async (log) => {
      const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
      const bad = [];
      let redraws = 0;
      for (let step = 0; step < 120 && log.scrollTop > 0; step++) {
        const box = log.getBoundingClientRect();
        const first = [...log.querySelectorAll(':scope > article')].find((a) => a.getBoundingClientRect().bottom > box.top);
        const before = first.getBoundingClientRect().top;
        const firstDrawn = log.querySelector(':scope > article').dataset.message;
        const by = Math.min(300, log.scrollTop);
        log.scrollTop -= by;
        await frames();
        await frames();
        if (log.querySelector(':scope > article').dataset.message !== firstDrawn) redraws++;
        if (!first.isConnected) continue; // it left the drawn rows (far below now)
        const moved = first.getBoundingClientRect().top - before;
        if (Math.abs(moved - by) > 2) bad.push(`${first.dataset.message}: scrolled ${by}, moved ${moved.toFixed(1)}`);
      }
      return { bad, redraws, top: log.scrollTop };
    });
    assert.deepEqual(jumps.bad, [], 'no jumps');
    assert.ok(jumps.redraws > 3, `older messages were drawn on the way up (${jumps.redraws} redraws)`);
    const jump = page.getByRole('button', byName('Jump to latest'));
    await jump.waitFor();
    await jump.click();
    await poll(() => onScreen(page, `m${N - 1}`), { message: 'the latest message on screen again' });
    await jump.waitFor({ state: 'hidden' });
    assert.ok((await drawnCount(page)) < 80);
  });
});

test('a search result far up a long chat is drawn and shown; Ctrl+F there offers "Search chats"', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await seedLongChat(page, { needle: 'zebracorn', at: 12 });
    await poll(() => onScreen(page, `m${N - 1}`), { message: 'the latest message on screen' });
    assert.equal(await conversation(page).locator('article[data-message="m12"]').count(), 0, 'message 12 not drawn at first');
    await page.keyboard.press('Control+f');
    const dialog = page.getByRole('dialog', byName('Search chats'));
    await dialog.waitFor();
    await dialog.getByRole('searchbox', byName('Search chats')).fill('zebracorn');
    await dialog.getByRole('button', { name: /zebracorn/ }).first().click();
    await dialog.waitFor({ state: 'detached' });
    await poll(() => onScreen(page, 'm12'), { message: 'message 12 drawn and on screen' });
    assert.equal(await conversation(page).locator('article.found').getAttribute('data-message'), 'm12', 'and marked');
    await page.getByRole('button', byName('Jump to latest')).waitFor();
  });
});

test('a search result far up a long chat that is not open opens that chat at the message', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await seedLongChat(page, { needle: 'zebracorn', at: 12, elsewhere: true });
    await page.getByRole('button', byName('Search chats')).click();
    const dialog = page.getByRole('dialog', byName('Search chats'));
    await dialog.getByRole('searchbox', byName('Search chats')).fill('zebracorn');
    await dialog.getByRole('button', { name: /zebracorn/ }).first().click();
    await dialog.waitFor({ state: 'detached' });
    await poll(() => onScreen(page, 'm12'), { message: 'message 12 of the other chat drawn and on screen' });
    assert.equal(await conversation(page).locator('article.found').getAttribute('data-message'), 'm12', 'and marked');
  });
});

test('in a short chat Ctrl+F is left to the browser', async (t) => {
  await e2e.open(t, async ({ page }) => {
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    await sendMessage(page, 'Hello there');
    await waitIdle(page);
    await page.keyboard.press('Control+f');
    await page.waitForTimeout(300);
    assert.equal(await page.getByRole('dialog').count(), 0, 'no dialog of ours');
  });
});

test('an edit in progress survives its message scrolling out of the drawn rows and back', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await seedLongChat(page);
    const last = lastUser(page);
    await last.getByRole('button', byName('Edit')).click();
    const box = last.getByRole('textbox', byName('Edit message'));
    await box.fill('A better question, half typed');
    const id = await last.getAttribute('data-message');
    await conversation(page).evaluate((log) => { log.scrollTop = 0; });
    await poll(async () => (await conversation(page).locator(`article[data-message="${id}"]`).count()) === 0, { message: 'the edited message no longer drawn' });
    await page.getByRole('button', byName('Jump to latest')).click();
    const again = conversation(page).locator(`article[data-message="${id}"]`);
    await again.waitFor();
    assert.equal(await again.getByRole('textbox', byName('Edit message')).inputValue(), 'A better question, half typed');
  });
});

test('the keyboard focus in a message that scrolls out of the drawn rows moves to the conversation, not the page', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await seedLongChat(page);
    const last = lastUser(page);
    const id = await last.getAttribute('data-message');
    const edit = last.getByRole('button', byName('Edit'));
    await edit.focus();
    assert.equal(await edit.evaluate((b) => document.activeElement === b), true, 'the button has the focus');
    await conversation(page).evaluate((log) => { log.scrollTop = 0; });
    await poll(async () => (await conversation(page).locator(`article[data-message="${id}"]`).count()) === 0, { message: 'the message no longer drawn' });
    const focused = await page.evaluate(() => {
      const a = document.activeElement;
      return a ? { role: a.getAttribute('role'), label: a.getAttribute('aria-label') } : null;
    });
    assert.deepEqual(focused, { role: 'log', label: 'Conversation' }, 'the focus is on the conversation');
    // The keyboard goes on from there: End brings the latest messages back — pressed, as a person
    // would, once the view has stopped moving (the rows drawn after the jump to the top come in
    // over several frames; on a busy machine a key pressed in between raced them).
    await settled(page);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Conversation', 'the focus stayed on the conversation');
    await page.keyboard.press('End');
    await poll(() => onScreen(page, `m${N - 1}`), { message: 'End from the conversation shows the latest message' });
  });
});

/** The live-region setting Chromium's accessibility tree gives the conversation (`log`). */
async function liveOfLog(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Accessibility.enable');
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const log = nodes.find((n) => n.role?.value === 'log' && n.name?.value === 'Conversation');
    return log?.properties?.find((p) => p.name === 'live')?.value?.value ?? null;
  } finally {
    await cdp.detach();
  }
}

test('the conversation stays a polite live region: after older messages were drawn (quietly) and "Jump to latest", a reply arriving is announced', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await seedLongChat(page, { n: 40 });
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    const log = conversation(page);
    assert.equal(await liveOfLog(page), 'polite', 'live from the start');
    // Older messages drawn above the view (redraws bring back messages already there: quiet).
    await log.evaluate((el) => { el.scrollTop = 0; });
    await poll(() => onScreen(page, 'm0'), { message: 'the first message drawn' });
    await page.getByRole('button', byName('Jump to latest')).click();
    await poll(() => onScreen(page, 'm39'), { message: 'the latest message again' });
    await sendMessage(page, Array.from({ length: 60 }, (_, i) => `word${i}`).join(' '));
    await poll(async () => /word5\b/.test(await log.locator('article[data-status="streaming"]').innerText().catch(() => '')), {
      message: 'the reply arriving',
      timeout: 20_000,
    });
    assert.equal(await liveOfLog(page), 'polite', 'live while the reply arrives');
    assert.equal(await log.locator('article[data-status="streaming"]').count(), 1, 'the reply is inside the live region');
    await waitIdle(page);
  });
});

test('rows that grow below the view after a scroll to the end, before that scroll is reported, do not leave the end', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await seedLongChat(page, { n: 40 });
    const log = conversation(page);
    const atEnd = () => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 2);
    await poll(atEnd, { message: 'the chat open at its end' });
    await page.getByRole('button', byName('Jump to latest')).waitFor({ state: 'hidden' });
    // In one task, as when the last message grows (a reply's text, its formatting) around the
    // app's own scroll to the end: the scroll's event comes a frame later, when the end is
    // already further down.
    await log.evaluate((el) => {
      const last = el.querySelector(':scope > article:last-of-type');
      last.style.paddingBottom = '600px';
      el.scrollTop = el.scrollHeight;
      last.style.paddingBottom = '1200px';
    });
    await poll(atEnd, { message: 'the view back at the end' });
    await page.waitForTimeout(300);
    assert.ok(await atEnd(), 'still at the end');
    assert.equal(await page.getByRole('button', byName('Jump to latest')).isVisible(), false, 'no "Jump to latest"');
    // Moving up is the user's: the view stays there.
    const held = await log.evaluate((el) => {
      el.scrollTop -= 400;
      return el.scrollTop;
    });
    await page.getByRole('button', byName('Jump to latest')).waitFor();
    await page.waitForTimeout(300);
    assert.equal(await log.evaluate((el) => el.scrollTop), held, 'the view stayed where the user scrolled');
  });
});

test('scrolling up while a reply arrives keeps the view where the user put it; "Jump to latest" follows the reply again', async (t) => {
  await e2e.open(t, async ({ page }) => {
    await seedLongChat(page, { n: 40 });
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small' });
    // The fake server echoes the message a word at a time: a long message, a long reply.
    await sendMessage(page, Array.from({ length: 120 }, (_, i) => `word${i}`).join(' '));
    const log = conversation(page);
    await poll(async () => /word10\b/.test(await log.locator('article[data-status="streaming"]').innerText().catch(() => '')), {
      message: 'the reply arriving',
      timeout: 20_000,
    }).catch(async (e) => {
      throw new Error(`${e.message}; alerts: ${await page.getByRole('alert').allInnerTexts()}; last: ${await log.locator('article').last().innerText()}`);
    });
    // What the user sees: the first message in view and where it is on screen. (The view's
    // scroll offset itself may move with the spacer above when estimates of rows not drawn are
    // corrected by what was measured: what is on screen stays put.)
    const held = await log.evaluate((el) => {
      el.scrollTop -= 500;
      const top = el.getBoundingClientRect().top;
      const first = [...el.querySelectorAll('article')].find((a) => a.getBoundingClientRect().bottom > top);
      return { id: first.dataset.message, at: first.getBoundingClientRect().top - top };
    });
    await page.waitForTimeout(800);
    assert.ok(await log.locator('article[data-status="streaming"]').count(), 'still arriving');
    const now = await log.evaluate((el, id) => {
      const a = el.querySelector(`article[data-message="${id}"]`);
      return a && { id, at: a.getBoundingClientRect().top - el.getBoundingClientRect().top };
    }, held.id);
    assert.ok(now && Math.abs(now.at - held.at) <= 1, `the view stayed where the user scrolled: ${JSON.stringify(held)} then ${JSON.stringify(now)}`);
    await page.getByRole('button', byName('Jump to latest')).click();
    await poll(async () => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 2), { message: 'at the end again' });
    await waitIdle(page);
    assert.ok(await log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 2), 'followed the reply to its end');
  });
});
