// What the page does with rendered markdown (crates/core/src/markdown.rs) wherever it appears —
// replies, the user's messages, the share preview. Started by the markdown module
// (src/bin/satori-markdown.rs), so nothing of this is on the first-load path.
//
// - Formulas: the renderer marks each as <span class="md-math">TeX source</span>; they are
//   typeset as they are drawn by the math module (src/web/math.js: temml, about 60 KB gzip),
//   loaded the first time a formula appears. Until it has loaded, and if it cannot load, the TeX
//   source shows.
// - Previews: "Preview" on an html or svg code block draws the code in a sandboxed frame
//   (src/web/preview.html: an origin of its own, a policy that fetches nothing), without its
//   scripts until the user chooses "Run scripts" (scripts could still reach the network
//   through WebRTC, which no policy closes).
// - Diagrams: a mermaid block, once its reply has arrived, is drawn by mermaid (npm, fetched the
//   first time a chat shows one) in such a frame, in mermaid's strict mode; "Source" shows the
//   block's source again.
const PENDING = '.md-math:not([data-typeset])';
// The user's messages, shown as typed: their formulas are marked here (the renderer's
// plain_with_math), the rest of the text stays as it was.
const TYPED = 'article[data-role="user"] .content.plain:not([data-math])';

// A mermaid block not drawn yet.
const DIAGRAM = '.md-mermaid:not([data-drawn])';

/** Marks the formulas of the user's messages in `els` (when the markdown module is ready). */
function markTyped(els, modules) {
  const md = modules.ready.get('markdown');
  if (!md) return;
  for (const el of els) {
    el.dataset.math = '';
    const text = el.textContent;
    if (/\$|\\[([]/.test(text)) el.innerHTML = md.plain_with_math(text);
  }
}

export function watchRendered() {
  const modules = globalThis.__satoriModules;
  if (!modules || !globalThis.document) return;
  const typeset = (found) => {
    const math = modules.ready.get('math');
    if (math) {
      for (const el of found) math.typeset(el);
      return;
    }
    // Loaded once; a failed load is tried again when the next formula appears.
    modules.load('math').then(
      () => typeset(document.querySelectorAll(PENDING)),
      () => {},
    );
  };
  // Mutation callbacks run before the page is painted again, so a formula redrawn while a reply
  // arrives never flashes its source once the module has loaded.
  const within = (records, selector) => {
    const found = [];
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        if (node.matches(selector)) found.push(node);
        else if (node.firstElementChild) found.push(...node.querySelectorAll(selector));
      }
    }
    return found;
  };
  new MutationObserver((records) => {
    markTyped(within(records, TYPED), modules);
    const found = within(records, PENDING);
    if (found.length) typeset(found);
    for (const block of within(records, DIAGRAM)) diagram(block);
  }).observe(document.body, { childList: true, subtree: true });
  // What was drawn before: once this module is ready (this runs while it starts).
  modules.load('markdown').then(() => {
    markTyped(document.querySelectorAll(TYPED), modules);
    const now = document.querySelectorAll(PENDING);
    if (now.length) typeset(now);
    for (const block of document.querySelectorAll(DIAGRAM)) diagram(block);
  }, () => {});
  addEventListener('message', sized);
  document.addEventListener('click', preview);
  document.addEventListener('copy', copyTex);
}

// mermaid's script, fetched once (the first time a chat shows a diagram).
let mermaid = null;
const mermaidScript = () => {
  const meta = document.querySelector('meta[name="satori-module:mermaid"]');
  if (!meta) return Promise.reject(new Error('this copy of Satori was built without mermaid'));
  mermaid ??= fetch(new URL(meta.getAttribute('content'), document.baseURI)).then((r) => {
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    return r.text();
  });
  mermaid.catch(() => (mermaid = null));
  return mermaid;
};
// The diagrams drawn in one message at most.
const MAX_DIAGRAMS = 8;
// Each diagram's frame -> its box.
const diagrams = new WeakMap();

// Draws a mermaid block as a diagram in a sandboxed frame after it, once its reply has arrived
// (a block still growing would be drawn again and again); its source hides, one click away
// ("Source"). If it cannot be drawn, the source stays and a line says why.
function diagram(block) {
  if (!block.isConnected || block.closest('article[data-status="streaming"]')) return;
  const code = block.querySelector('code');
  if (!code) return;
  block.dataset.drawn = '';
  const box = document.createElement('div');
  box.className = 'code-preview code-diagram';
  // Each diagram runs mermaid in a frame of its own: a reply with a flood of them would stall the
  // page whenever it is drawn.
  const drawn = block.closest('article, .markdown')?.querySelectorAll('.md-mermaid[data-drawn]').length ?? 0;
  if (drawn > MAX_DIAGRAMS) {
    block.after(box);
    failed(box, `more than ${MAX_DIAGRAMS} in one message`);
    return;
  }
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = 'Diagram';
  frame.referrerPolicy = 'no-referrer';
  const theme = document.documentElement.dataset.theme;
  const dark = theme ? theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  const source = code.textContent;
  const ready = (e) => {
    if (e.source !== frame.contentWindow || e.data !== 'satori-preview-ready') return;
    stop(frame);
    mermaidScript().then(
      (script) => frame.contentWindow && frame.contentWindow.postMessage({ diagram: { script, source, dark } }, '*'),
      (err) => failed(box, err.message),
    );
  };
  waiting.set(frame, ready);
  diagrams.set(frame, box);
  addEventListener('message', ready);
  frame.src = new URL('preview.html', document.baseURI).href;
  box.append(frame);
  block.after(box);
}

// A diagram's frame said it is drawn (its height) or why not.
function sized(e) {
  const frame = [...document.querySelectorAll('.code-diagram iframe')].find((f) => f.contentWindow === e.source);
  const box = frame && diagrams.get(frame);
  const said = e.data && e.data.satoriDiagram;
  if (!box || !said) return;
  const block = box.previousElementSibling;
  if (said === 'drawn' && Number.isFinite(e.data.height)) {
    frame.style.height = `${Math.min(Math.max(e.data.height, 48), 900)}px`;
    box.classList.add('drawn');
    if (block) {
      block.classList.add('source-hidden');
      block.querySelector('.source-code')?.setAttribute('aria-expanded', 'false');
    }
  } else {
    failed(box, typeof e.data.why === 'string' ? e.data.why : '');
  }
}

// The diagram in `box` could not be drawn: its source stays (and "Source", which would do
// nothing, goes), and a line says why.
function failed(box, why) {
  box.querySelector('iframe')?.remove();
  box.previousElementSibling?.querySelector('.source-code')?.remove();
  const line = document.createElement('p');
  line.className = 'diagram-failed';
  line.textContent = 'Diagram not drawn' + (why ? `: ${why}` : '');
  box.replaceChildren(line);
}

// "Source" shows a diagram's source, or hides it again.
function toggleSource(button) {
  const block = button.closest('.md-mermaid');
  if (!block || !block.nextElementSibling?.classList.contains('drawn')) return;
  const hidden = block.classList.toggle('source-hidden');
  button.setAttribute('aria-expanded', String(!hidden));
}

// A formula's TeX source with its delimiters.
const source = (el) => {
  const fence = el.classList.contains('md-display') ? '$$' : '$';
  return fence + el.dataset.tex + fence;
};

// Copying a selection with typeset formulas in it copies their TeX source in their place (the
// MathML's own text would be a jumble of glyphs).
function copyTex(event) {
  const selection = getSelection();
  if (!selection || selection.isCollapsed || !selection.rangeCount || !event.clipboardData) return;
  const range = selection.getRangeAt(0);
  const common = range.commonAncestorContainer;
  const within = (common.nodeType === 1 ? common : common.parentElement)?.closest('.md-math[data-tex]');
  let text;
  let html;
  if (within) {
    text = source(within);
    html = text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  } else {
    const copy = range.cloneContents();
    const found = copy.querySelectorAll('.md-math[data-tex]');
    if (!found.length) return;
    for (const el of found) el.replaceWith(source(el));
    // Laid out (off screen) for its text to keep the lines and paragraphs the reader saw; in a
    // shadow root, where the page's observers do not see it.
    const host = document.createElement('div');
    host.style.position = 'fixed';
    host.style.left = '-10000px';
    const box = document.createElement('div');
    box.append(copy);
    host.attachShadow({ mode: 'open' }).append(box);
    document.body.append(host);
    text = box.innerText;
    html = box.innerHTML;
    host.remove();
  }
  event.clipboardData.setData('text/plain', text);
  event.clipboardData.setData('text/html', html);
  event.preventDefault();
}

// The code each open preview draws, and the listener waiting for its frame.
const sources = new WeakMap(); // .code-preview -> the code block's text
const waiting = new WeakMap(); // iframe -> its 'message' listener

// "Preview" shows the code block's preview, or hides it; "Run scripts" draws it again with or
// without the page's scripts (without, at first).
function preview(event) {
  const target = event.target instanceof Element ? event.target : null;
  const source = target && target.closest('.source-code');
  if (source) {
    toggleSource(source);
    return;
  }
  const run = target && target.closest('.preview-run');
  if (run) {
    draw(run.closest('.code-preview'), run.getAttribute('aria-pressed') !== 'true');
    return;
  }
  const button = target && target.closest('.preview-code');
  const block = button && button.closest('.code-block');
  const code = block && block.querySelector('code');
  if (!code) return;
  const shown = block.nextElementSibling;
  if (shown && shown.classList.contains('code-preview')) {
    stop(shown.querySelector('iframe'));
    shown.remove();
    button.setAttribute('aria-expanded', 'false');
    return;
  }
  const box = document.createElement('div');
  box.className = 'code-preview';
  const bar = document.createElement('div');
  bar.className = 'preview-bar';
  const toggle = document.createElement('button');
  toggle.type = 'button';
  toggle.className = 'preview-run';
  toggle.textContent = 'Run scripts';
  bar.append(toggle);
  box.append(bar);
  sources.set(box, code.textContent);
  block.after(box);
  draw(box, false);
  box.scrollIntoView({ block: 'nearest' });
  button.setAttribute('aria-expanded', 'true');
}

// Draws the preview `box` in a new sandboxed frame, with the page's scripts or without.
function draw(box, scripts) {
  const old = box && box.querySelector('iframe');
  if (old) {
    stop(old);
    old.remove();
  }
  if (!box) return;
  const frame = document.createElement('iframe');
  // Before the address: the frame never exists without its sandbox.
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = 'Preview';
  frame.referrerPolicy = 'no-referrer';
  const html = sources.get(box) ?? '';
  // The frame says when it listens; only then, and only to it, the code goes.
  const ready = (e) => {
    if (e.source !== frame.contentWindow || e.data !== 'satori-preview-ready') return;
    stop(frame);
    frame.contentWindow.postMessage({ html, scripts }, '*');
  };
  waiting.set(frame, ready);
  addEventListener('message', ready);
  frame.src = new URL('preview.html', document.baseURI).href;
  box.append(frame);
  box.querySelector('.preview-run').setAttribute('aria-pressed', String(scripts));
}

// The frame's listener, if it is still waiting, removed.
function stop(frame) {
  const ready = frame && waiting.get(frame);
  if (ready) removeEventListener('message', ready);
  if (frame) waiting.delete(frame);
}
