// Formulas in replies and in the user's messages are drawn as MathML (src/web/math.js, temml),
// loaded only once a formula appears; code, prices and formulas that do not parse stay text;
// copying gives the TeX source; hostile TeX stays inert. "Preview" draws an html or svg code block
// in a sandboxed frame that can reach neither Satori nor the network.
import { test } from 'node:test';
import http from 'node:http';
import dgram from 'node:dgram';
import assert from 'node:assert/strict';
import { useApp } from './support/app.mjs';
import {
  configure,
  waitIdle,
  sendMessage,
  conversation,
  lastAssistant,
  waitForStatus,
  poll,
  reload,
  sleep,
} from './support/browser.mjs';

const e2e = useApp();

const REPLY = [
  'Fraction: $\\frac{1}{2}$ of it.\n\n',
  'The sum:\n\n$$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$\n\n',
  'A matrix: \\[\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}\\]\n\n',
  'Code: `$x$` and\n\n```\n$$y$$ \\(z\\)\n```\n\n',
  'Prices: $5 and $10, from $5-$10.\n\n',
  'Broken: $\\frac{1}$ stays.',
];

/** Where the formulas of `scope` stand: how each was typeset and the MathML drawn. */
function formulas(scope) {
  return scope.locator('.md-math').evaluateAll((els) =>
    els.map((el) => ({
      state: el.dataset.typeset ?? 'waiting',
      text: el.dataset.typeset === 'done' ? null : el.textContent,
      title: el.getAttribute('title'),
      display: el.querySelector('math')?.getAttribute('display') ?? null,
      tags: [...el.querySelectorAll('math *')].map((e) => e.localName).join(' '),
    })),
  );
}

test('formulas are drawn as MathML in replies and messages; code, prices and a formula that does not parse stay text; a selection copies as TeX', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-math' });
    await sleep(300);
    const mathLoaded = () => page.evaluate(() => globalThis.__satoriModules.ready.has('math'));
    assert.equal(await mathLoaded(), false, 'the math module is not loaded before a formula appears');

    e2e.fake.enqueue({ chunks: REPLY });
    await sendMessage(page, 'What is \\(\\frac{a}{b}\\)?');
    await waitIdle(page);
    const reply = lastAssistant(page);
    await waitForStatus(reply, 'complete');
    await poll(async () => (await formulas(reply)).every((f) => f.state !== 'waiting'), { message: 'every formula typeset or refused' });
    assert.equal(await mathLoaded(), true, 'the math module was loaded');

    const [fraction, sum, matrix, broken, ...more] = await formulas(reply);
    assert.deepEqual(more, [], 'four formulas: no code span, code block or price became one');
    assert.equal(fraction.state, 'done');
    assert.equal(fraction.display, null, 'inline');
    assert.match(fraction.tags, /^mfrac mn mn/, 'a fraction of 1 over 2');
    assert.equal(sum.display, 'block');
    assert.match(sum.tags, /munderover mo mrow mi mo mn mi/, 'a sum with limits under and over');
    assert.match(sum.tags, /mfrac/);
    assert.equal(matrix.display, 'block', '\\[…\\] is display math');
    assert.match(matrix.tags, /mtable mtr mtd mn mtd mn mtr mtd mn mtd mn/, 'a 2×2 matrix');
    assert.deepEqual(
      { state: broken.state, text: broken.text, title: broken.title },
      { state: 'error', text: '$\\frac{1}$', title: 'Formula not typeset' },
      'a formula that does not parse shows its source',
    );
    const texts = await reply.locator('.content').evaluate((el) => ({
      code: [...el.querySelectorAll('code')].map((c) => c.textContent),
      prices: [...el.querySelectorAll('p')].find((p) => p.textContent.startsWith('Prices'))?.textContent,
    }));
    assert.deepEqual(texts.code, ['$x$', '$$y$$ \\(z\\)\n'], 'code keeps its dollars and backslashes');
    assert.equal(texts.prices, 'Prices: $5 and $10, from $5-$10.');

    // The user's own message.
    const mine = conversation(page).locator('article[data-role="user"]').last();
    await poll(async () => (await formulas(mine))[0]?.state === 'done', { message: 'the message typeset' });
    assert.match((await formulas(mine))[0].tags, /^mfrac mi mi/);

    // A selection copies the TeX, not the glyphs.
    await page.bringToFront();
    await reply.locator('.content p').first().evaluate((p) => {
      const range = document.createRange();
      range.selectNodeContents(p);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      document.execCommand('copy');
    });
    const copied = await poll(
      async () => {
        const text = await page.evaluate(() => navigator.clipboard.readText());
        return text.includes('Fraction') ? text : false;
      },
      { timeout: 5_000, message: 'the selection in the clipboard' },
    );
    assert.equal(copied.trim(), 'Fraction: $\\frac{1}{2}$ of it.');

    // Drawn again after a reload, from storage.
    await reload(page);
    await poll(async () => (await formulas(lastAssistant(page))).filter((f) => f.state === 'done').length === 3, {
      message: 'the formulas typeset after a reload',
    });
    assert.deepEqual(app.pageErrors, []);
  });
});

// 127.0.0.2 is loopback that nobody serves: a request there would mean a formula fetched something.
const HOSTILE = [
  '$\\href{javascript:window.__xss=1}{click}$',
  '\\(\\url{http://127.0.0.2:9/u}\\)',
  '$$\\includegraphics{http://127.0.0.2:9/i.png}$$',
  '$<script>window.__xss=1</script>$',
  '$\\text{<img src="http://127.0.0.2:9/t.png" onerror="window.__xss=1">}$',
  '$\\class{x}{y}\\style{background:url(http://127.0.0.2:9/s.png)}{z}$',
  '$\\color{red;background:url(http://127.0.0.2:9/c.png)}{w}$',
  '$\\ref{x}\\label{x}$',
  '$\\kern{10000em}\\rule{9999em}{9999em}$',
  '$\\def\\a{\\a\\a}\\a$',
  '$<b onclick="alert(1)">bold</b>$',
  '$\\text{<img src="http://127.0.0.2:9/t.png">}$',
].join('\n\n');

test('hostile TeX stays inert: no link, no HTML, no request, no script, no huge box', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-math' });
    e2e.fake.enqueue({ chunks: [HOSTILE.slice(0, 90), HOSTILE.slice(90)] });
    await sendMessage(page, '$\\href{javascript:window.__xss=1}{mine}$');
    await waitIdle(page);
    const reply = lastAssistant(page);
    await waitForStatus(reply, 'complete');
    await poll(async () => (await formulas(reply)).every((f) => f.state !== 'waiting'), { message: 'every formula settled' });
    await sleep(300);
    const found = await conversation(page).evaluate((log) => ({
      outside: [...log.querySelectorAll('.md-math *')]
        .filter((e) => e.namespaceURI !== 'http://www.w3.org/1998/Math/MathML')
        .map((e) => e.localName),
      links: [...log.querySelectorAll('.md-math [href], .md-math a, .md-math [src]')].length,
      widest: Math.max(...[...log.querySelectorAll('.md-math math')].map((e) => e.getBoundingClientRect().width)),
      logWidth: log.getBoundingClientRect().width,
    }));
    assert.deepEqual(found.outside, [], 'only MathML inside a formula');
    assert.equal(found.links, 0, 'no link and no source inside a formula');
    assert.ok(found.widest <= found.logWidth, `no formula wider than the chat (${found.widest} > ${found.logWidth})`);
    assert.equal(await page.evaluate(() => window.__xss), undefined);
    assert.deepEqual(app.dialogAlerts, []);
    assert.deepEqual(app.requests.filter((u) => u.includes('127.0.0.2')), [], 'nothing fetched');
    // temml refuses the untrusted commands, the endless macro and `__` (a double subscript, in
    // `window.__xss`); the rest is drawn, filtered: markup in a formula is symbols, not markup.
    assert.deepEqual(
      (await formulas(reply)).map((f) => f.state),
      ['error', 'error', 'error', 'error', 'error', 'error', 'error', 'done', 'done', 'error', 'done', 'done'],
    );
    assert.deepEqual(app.pageErrors, []);
  });
});

/** A loopback server counting the requests that reach it (and UDP packets, as a STUN server
 * would get them), serving `page` at /frame.html. */
async function counter(page = '') {
  const hits = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/frame.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page);
      return;
    }
    hits.push(req.url);
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'image/png' });
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const udp = dgram.createSocket('udp4');
  udp.on('message', () => hits.push('udp'));
  await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
  return {
    hits,
    origin: `http://127.0.0.1:${server.address().port}`,
    udp: udp.address().port,
    close: () => Promise.all([new Promise((r) => server.close(r)), new Promise((r) => udp.close(r))]),
  };
}

test('"Preview" draws an html or svg block in a sandbox, without its scripts until "Run scripts"; they reach neither Satori nor the network', async (t) => {
  const sink = await counter();
  t.after(() => sink.close());
  await e2e.open(t, async (app) => {
    const { page } = app;
    // What the preview says in the console (its refusals are expected): from its address, or
    // (its own scripts have none) naming the loopback server or preview.html.
    const fromPreview = [];
    page.on('console', (m) => {
      const text = m.text();
      if (/\/preview\.html$/.test(m.location().url) || text.includes(sink.origin) || text.includes('/preview.html')) fromPreview.push(text);
    });
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-preview' });
    // What the page tries, it writes into itself, so the test can read what was refused.
    const html = `<!doctype html><p id="out">drawn</p><img src="${sink.origin}/img.png">
<script>
const said = [];
const tryIt = (name, f) => { try { f(); said.push(name + ': reached'); } catch (e) { said.push(name + ': refused'); } };
tryIt('parent storage', () => parent.localStorage.getItem('x'));
tryIt('own storage', () => localStorage.getItem('x'));
tryIt('parent page', () => parent.document.body);
tryIt('top navigation', () => { top.location = '${sink.origin}/top'; });
try { new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${sink.udp}' }] }).createDataChannel('x'); } catch (e) {}
fetch('${sink.origin}/fetch').then(() => said.push('fetch: reached'), () => said.push('fetch: refused'))
  .finally(() => { document.getElementById('out').textContent = 'script ran; ' + said.join('; '); });
window.open('${sink.origin}/popup');
</script>`;
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><rect width="120" height="60" fill="#5b4bd1"/><text x="10" y="35" fill="#fff">svg drawn</text></svg>';
    e2e.fake.enqueue({ chunks: ['A page:\n\n```html\n', html, '\n```\n\nA drawing:\n\n```svg\n', svg, '\n```\n\nAnd code:\n\n```js\nlet x = 1;\n```\n'] });
    await sendMessage(page, 'Draw something');
    await waitIdle(page);
    const reply = lastAssistant(page);
    await waitForStatus(reply, 'complete');
    const storage = () => page.evaluate(() => ({ keys: Object.keys(localStorage).sort(), key: localStorage.getItem('satori.api_key'), url: location.href }));
    const before = await storage();
    const buttons = reply.getByRole('button', { name: 'Preview', exact: true });
    assert.equal(await buttons.count(), 2, 'html and svg blocks have "Preview", the js block has not');
    assert.equal(await buttons.first().getAttribute('aria-expanded'), 'false');

    // Drawn without its scripts.
    await buttons.first().click();
    assert.equal(await buttons.first().getAttribute('aria-expanded'), 'true');
    const frame = reply.locator('.code-preview iframe').first();
    assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts', 'scripts, nothing else: no same origin, popups, forms or top navigation');
    const out = () => page.frameLocator('article[data-role="assistant"] .code-preview iframe >> nth=0').locator('#out');
    await out().waitFor();
    await sleep(500);
    assert.equal(await out().textContent(), 'drawn', 'the page drawn, its script not run');
    assert.deepEqual(sink.hits, [], 'nothing reached the loopback server');

    // "Run scripts": they run, and reach nothing.
    const run = reply.getByRole('button', { name: 'Run scripts', exact: true });
    assert.equal(await run.getAttribute('aria-pressed'), 'false');
    await run.click();
    assert.equal(await run.getAttribute('aria-pressed'), 'true');
    await poll(async () => (await out().textContent().catch(() => '')).startsWith('script ran'), { message: 'the preview ran its script' });
    const said = await out().textContent();
    for (const line of ['parent storage: refused', 'own storage: refused', 'parent page: refused', 'top navigation: refused', 'fetch: refused']) {
      assert.ok(said.includes(line), `${line} (the preview said: ${said})`);
    }
    await sleep(500);
    // WebRTC is the one way out no policy closes (docs/self-hosting.md): not counted here.
    assert.deepEqual(sink.hits.filter((h) => h !== 'udp'), [], 'nothing reached the loopback server (image, fetch, navigation, popup)');
    const after = await storage();
    assert.equal(after.url, before.url, 'the page was not navigated');
    assert.deepEqual([after.keys, after.key], [before.keys, before.key], 'storage as it was');
    assert.equal(page.context().pages().length, 1, 'no popup opened');

    await buttons.nth(1).click();
    const drawn = page.frameLocator('article[data-role="assistant"] .code-preview iframe >> nth=1').locator('text');
    await poll(async () => (await drawn.textContent().catch(() => '')) === 'svg drawn', { message: 'the svg drawn' });

    // "Preview" again hides it; the source stayed in view all along.
    await buttons.first().click();
    assert.equal(await buttons.first().getAttribute('aria-expanded'), 'false');
    assert.equal(await reply.locator('.code-preview').count(), 1);
    assert.ok((await reply.locator('pre code').first().textContent()).includes('tryIt'));
    assert.deepEqual(app.pageErrors, []);
    // The preview's refusals are its policy at work; any other policy violation fails the test.
    assert.ok(fromPreview.some((m) => /Content Security Policy/i.test(m)), 'the preview\'s policy refused something');
    const mine = app.consoleMessages.filter((m) => !fromPreview.includes(m.text));
    app.consoleMessages.splice(0, app.consoleMessages.length, ...mine);
  });
});

test('preview.html draws nothing for a page that frames it outside its sandbox', async (t) => {
  await e2e.open(t, async (app) => {
    const target = new URL('preview.html', app.page.url()).href;
    const evil = await counter(`<!doctype html><iframe src="${target}"></iframe><script>
      const take = () => frames[0].postMessage({ html: '<p id="x">taken</p>', scripts: true }, '*');
      onmessage = take;
      setTimeout(take, 300);
    </script>`);
    t.after(() => evil.close());
    const page = await app.page.context().newPage();
    await page.goto(`${evil.origin}/frame.html`);
    await sleep(1000);
    const inner = page.frames().find((f) => f.url() === target);
    assert.ok(inner, 'the frame loaded');
    assert.equal(await inner.evaluate(() => document.getElementById('x')), null, 'nothing drawn');
    await page.close();
  });
});

test('a mermaid block is drawn as a diagram in a sandbox once its reply has arrived, its source one click away; one that does not parse keeps its source and says why', async (t) => {
  const sink = await counter();
  t.after(() => sink.close());
  await e2e.open(t, async (app) => {
    const { page } = app;
    const fromFrames = [];
    page.on('console', (m) => {
      // (`script-src 'none'` is the frame's own lock: the app's policy has no such directive.)
      if (/\/preview\.html$/.test(m.location().url) || m.text().includes(sink.origin) || m.text().includes("'script-src 'none''")) fromFrames.push(m.text());
    });
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-mermaid' });
    const fetchedMermaid = () => app.requests.filter((u) => /\/mermaid-[0-9a-f]+\/mermaid\.js$/.test(u));
    assert.deepEqual(fetchedMermaid(), [], 'mermaid is not fetched before a chat shows a diagram');
    const flow = [
      'graph TD',
      '  A[Start] --> B{Ready?}',
      `  B -->|yes| C["<img src='${sink.origin}/label.png' onerror='alert(1)'>"]`,
      '  click A href "javascript:alert(1)"',
    ].join('\n');
    e2e.fake.enqueue({ chunks: ['A flow:\n\n```mermaid\n', flow, '\n```\n\nAnd a broken one:\n\n```mermaid\nthis is not a diagram\n```\n'] });
    await sendMessage(page, 'Draw the flow');
    await waitIdle(page);
    const reply = lastAssistant(page);
    await waitForStatus(reply, 'complete');
    const [good, bad] = [reply.locator('.md-mermaid').first(), reply.locator('.md-mermaid').nth(1)];
    await reply.locator('.code-diagram.drawn').waitFor({ timeout: 60_000 });
    await reply.locator('.diagram-failed').waitFor({ timeout: 30_000 });
    // (The page's request, and the service worker's on its behalf, which keeps it from now on.)
    assert.equal(new Set(fetchedMermaid()).size, 1, 'mermaid fetched when a diagram appeared');

    const frame = reply.locator('.code-diagram iframe').first();
    assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts');
    const svg = page.frameLocator('article[data-role="assistant"] .code-diagram iframe >> nth=0').locator('svg');
    assert.ok((await svg.textContent()).includes('Start'), 'the diagram drawn with its labels');
    assert.ok((await frame.boundingBox()).height > 100, 'the frame as tall as the diagram');
    // Its source one click away.
    const source = good.getByRole('button', { name: 'Source', exact: true });
    assert.equal(await source.getAttribute('aria-expanded'), 'false');
    assert.equal(await good.locator('pre').isVisible(), false, 'the source hidden once drawn');
    await source.click();
    assert.equal(await source.getAttribute('aria-expanded'), 'true');
    assert.ok(await good.locator('pre').isVisible());
    await source.click();
    assert.equal(await good.locator('pre').isVisible(), false);
    // The broken one keeps its source and says why.
    assert.match(await reply.locator('.diagram-failed').textContent(), /^Diagram not drawn/);
    assert.ok(await bad.locator('pre').isVisible(), 'its source stays');
    // The label's markup: its handler stripped (strict mode), its image refused by the frame's
    // policy; nothing fetched, nothing run, no link followed. A handler that slipped through
    // would not run either: once mermaid has run, the frame allows no script.
    const inFrame = page.frames().find((f) => f.url().endsWith('/preview.html') && f.parentFrame() === page.mainFrame());
    assert.deepEqual(
      await inFrame.evaluate(() => {
        const img = document.createElement('img');
        img.setAttribute('onerror', 'document.title = "ran"');
        img.src = 'data:,x';
        document.body.append(img);
        return new Promise((r) => setTimeout(() => r([document.title, document.querySelectorAll('svg [onerror], svg [onclick]').length]), 300));
      }),
      ['', 0],
      'no handler in the diagram, and none runs there',
    );
    assert.equal(await bad.getByRole('button', { name: 'Source', exact: true }).count(), 0, 'no "Source" where nothing was drawn');
    await sleep(500);
    // A flood of diagrams in one reply: 8 drawn, the rest keep their source.
    e2e.fake.enqueue({ chunks: Array.from({ length: 10 }, (_, i) => `\`\`\`mermaid\ngraph LR; a${i}-->b${i}\n\`\`\`\n\n`) });
    await sendMessage(page, 'Many diagrams');
    await waitIdle(page);
    const many = lastAssistant(page);
    await waitForStatus(many, 'complete');
    await poll(async () => (await many.locator('.diagram-failed').count()) === 2, { message: 'the 9th and 10th not drawn' });
    assert.equal(await many.locator('.code-diagram iframe').count(), 8);
    assert.match(await many.locator('.diagram-failed').first().textContent(), /^Diagram not drawn: more than 8 in one message$/);
    assert.deepEqual(sink.hits, [], 'nothing reached the loopback server');
    assert.deepEqual(app.dialogAlerts, []);
    assert.deepEqual(app.pageErrors, []);
    const mine = app.consoleMessages.filter((m) => !fromFrames.includes(m.text));
    app.consoleMessages.splice(0, app.consoleMessages.length, ...mine);
  });
});
