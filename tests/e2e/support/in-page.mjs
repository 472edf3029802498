// Sources of functions run inside a browser that Playwright does not drive (Firefox over
// WebDriver BiDi, WebKitGTK over WebDriver): each is an async function's source, no arguments,
// whose result is sent back as JSON.

// What every such function starts with: `sleep`, `until(f, what, ms, every)` (polls `f` until it
// gives something, or fails naming `what`), `answers()` and `send(text)` (types into the
// composer, as a user's input event, and presses Send).
const HELPERS = `
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (f, what, ms = 240000, every = 200) => {
    for (const end = Date.now() + ms; ; await sleep(every)) {
      const v = f();
      if (v) return v;
      if (Date.now() > end) throw new Error('timed out waiting for ' + what);
    }
  };
  const answers = () => document.querySelectorAll('article[data-role="assistant"]');
  const send = async (text) => {
    const box = await until(() => document.querySelector('#composer-input'), 'the composer');
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, text);
    box.dispatchEvent(new Event('input', { bubbles: true }));
    await sleep(100);
    [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Send').click();
  };
  const offer = () => until(() => [...document.querySelectorAll('button')].find((b) => b.textContent.startsWith('Use the in-browser model')), 'the offer');
`;

// Types `text`, presses Send, optionally clicks the first-run offer, and waits for the new
// answer's end: its status and text, the alerts shown, whether the page is cross-origin
// isolated, and the provider saved.
export const ask = (text, takeOffer) => `async () => {${HELPERS}
  await until(() => document.querySelector('#composer-input'), 'the composer');
  const before = answers().length;
  await send(${JSON.stringify(text)});
  let offered = null;
  if (${Boolean(takeOffer)}) {
    const button = await offer();
    offered = button.textContent;
    button.click();
  }
  const done = ['complete', 'incomplete', 'error', 'stopped'];
  const reply = await until(() => {
    const a = answers();
    const last = a[a.length - 1];
    return a.length > before && done.includes(last.dataset.status) ? last : null;
  }, 'the answer');
  return {
    offered,
    status: reply.dataset.status,
    text: reply.querySelector('.content, .markdown, .plain')?.textContent ?? reply.innerText,
    alerts: [...document.querySelectorAll('[role="alert"]')].map((a) => a.innerText).filter(Boolean),
    isolated: self.crossOriginIsolated,
    provider: JSON.parse(localStorage.getItem('satori.settings') ?? '{}').provider,
  };
}`;

// Sends "Hello?", takes the first-run offer, and gives the alert that then says `words`.
export const refusedAfterOffer = (words) => `async () => {${HELPERS}
  await send('Hello?');
  (await offer()).click();
  const said = () => [...document.querySelectorAll('[role="alert"]')].map((a) => a.innerText).find((t) => t.includes(${JSON.stringify(words)}));
  return await until(said, 'the alert saying ' + ${JSON.stringify(JSON.stringify(words))}, 120000);
}`;

// Sends `text`, presses Stop as soon as the answer has words, and reports the answer's status,
// its words then, and its words 1.5 s later.
export const stopEarly = (text) => `async () => {${HELPERS}
  await until(() => document.querySelector('#composer-input'), 'the composer');
  const before = answers().length;
  await send(${JSON.stringify(text)});
  const last = () => {
    const a = answers();
    return a.length > before ? a[a.length - 1] : null;
  };
  const words = () => last()?.querySelector('.content, .markdown, .plain')?.textContent.trim() ?? '';
  await until(() => words().length > 0, 'the first words', 120000, 20);
  (await until(() => [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Stop'), 'Stop', 120000, 20)).click();
  await until(() => ['complete', 'incomplete', 'error', 'stopped'].includes(last()?.dataset.status), 'the end', 120000, 20);
  const then = words();
  await sleep(1500);
  return { status: last().dataset.status, words: then, later: words() };
}`;

// Formulas as the markdown renderer marks them, put in the page: once the page has typeset them
// (src/web/rendered.js, src/web/math.js), how each came out — its state, its MathML elements,
// and whether the engine laid the fraction out (taller than its numerator: stacked).
export const typesets = () => `async () => {${HELPERS}
  await until(() => globalThis.__satoriModules?.ready.has('markdown'), 'the markdown module', 60000);
  const box = document.createElement('div');
  box.className = 'markdown';
  box.innerHTML = '<p><span class="md-math">\\\\frac{a+1}{b}</span></p>'
    + '<span class="md-math md-display">\\\\sum_{i=1}^{n} i</span>'
    + '<span class="md-math md-display">\\\\begin{pmatrix}1&amp;2\\\\\\\\3&amp;4\\\\end{pmatrix}</span>';
  document.body.append(box);
  const spans = [...box.querySelectorAll('.md-math')];
  await until(() => spans.every((s) => s.dataset.typeset), 'the formulas typeset', 30000);
  const frac = box.querySelector('mfrac');
  const result = {
    states: spans.map((s) => s.dataset.typeset),
    tags: spans.map((s) => [...s.querySelectorAll('math *')].map((e) => e.localName).join(' ')),
    stacked: !!frac && frac.getBoundingClientRect().height > 1.6 * frac.firstElementChild.getBoundingClientRect().height,
  };
  box.remove();
  return result;
}`;
