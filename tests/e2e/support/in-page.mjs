// Sources of functions run inside a browser that Playwright does not drive (Firefox over
// WebDriver BiDi, WebKitGTK over WebDriver): each is an async function's source, no arguments,
// whose result is sent back as JSON.

// Types `text`, presses Send, optionally clicks the first-run offer, and waits for the new
// answer's end: its status and text, the alerts shown, whether the page is cross-origin
// isolated, and the provider saved.
export const ask = (text, offer) => `async () => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (f, what, ms = 240000) => {
    const end = Date.now() + ms;
    for (;;) {
      const v = f();
      if (v) return v;
      if (Date.now() > end) throw new Error('timed out waiting for ' + what);
      await sleep(200);
    }
  };
  const box = await until(() => document.querySelector('#composer-input'), 'the composer');
  const answers = () => document.querySelectorAll('article[data-role="assistant"]');
  const before = answers().length;
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, ${JSON.stringify(text)});
  box.dispatchEvent(new Event('input', { bubbles: true }));
  await sleep(100);
  [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Send').click();
  let offered = null;
  if (${Boolean(offer)}) {
    const button = await until(() => [...document.querySelectorAll('button')].find((b) => b.textContent.startsWith('Use the in-browser model')), 'the offer');
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
