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
// - Attachments: the attachments module (src/web/attach.js: files attached to a message, kept in
//   this browser; a sent message's thumbnails) is loaded the first time it is needed — "Attach"
//   clicked, files pasted into the message box or dragged over the page, a message with
//   attachments shown — and handed the event that needed it; from then on it listens itself.
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
    if (!modules.ready.has('attach') && within(records, ATTACHED).length) attachments(modules);
    for (const form of within(records, 'form.composer')) attachControls(form);
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
  if (document.querySelector(ATTACHED)) attachments(modules);
  attachControls(document.querySelector('form.composer'));
  waitForFiles(modules);
}

// "Attach", its file input (labelled "Attach files") and the row of chips above the message box,
// added to the composer by this script, right after the composer is usable: none of it is in the
// app's first load. The app reads the chips when a message is sent (src/ui/chat.rs).
function attachControls(form) {
  if (!form || form.querySelector('#attach-chips')) return;
  const chips = document.createElement('ul');
  chips.id = 'attach-chips';
  chips.className = 'chips';
  chips.setAttribute('aria-label', 'Attachments');
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'attach';
  button.setAttribute('aria-label', 'Attach');
  button.title = 'Attach';
  // Lucide's paperclip (https://lucide.dev, ISC License), drawn here rather than in the page's
  // sprite, which is part of the first load.
  button.innerHTML =
    '<svg class="icon" aria-hidden="true" viewBox="0 0 24 24"><path d="m16 6-8.414 8.586a2 2 0 0 0 2.829 2.829l8.414-8.586a4 4 0 1 0-5.657-5.657l-8.379 8.551a6 6 0 1 0 8.485 8.485l8.379-8.551"/></svg>';
  const input = document.createElement('input');
  input.type = 'file';
  input.id = 'attach-input';
  input.multiple = true;
  input.hidden = true;
  input.setAttribute('aria-label', 'Attach files');
  form.prepend(chips, button, input);
}

// A sent message's attachment (its name, thumbnail and size come from the attachments module).
const ATTACHED = '.attachments li[data-attachment]';

// The attachments module, loaded (once; a failed load is tried again when next needed), then
// handed `event` and the `files` it carried, if any.
function attachments(modules, event, files) {
  modules.load('attach').then(
    () => event && modules.ready.get('attach').handle(event, files),
    (e) => event && console.error('Satori: the attachments module could not be loaded:', e),
  );
}

// Until the attachments module listens itself: "Attach" opens the file picker at once (within
// the click, as browsers require) while the module loads, and the files picked, pasted into the
// message box or dropped anywhere on the page (but a dialog) are handed to it. A paste's or a
// drop's files are taken now: they are gone once the event is over. Files dragged over the page
// are taken (the browser would open a dropped file in place of Satori).
function waitForFiles(modules) {
  const waiting = () => !modules.ready.has('attach');
  const element = (e) => (e.target instanceof Element ? e.target : null);
  const carriesFiles = (e) =>
    !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files') && !element(e)?.closest('dialog');
  document.addEventListener('click', (e) => {
    if (!waiting() || !element(e)?.closest('button.attach')) return;
    document.getElementById('attach-input')?.click();
    attachments(modules);
  });
  document.addEventListener('change', (e) => {
    if (waiting() && element(e)?.id === 'attach-input') attachments(modules, e);
  });
  document.addEventListener('paste', (e) => {
    // (A paste that carries text as well pastes its text, as in src/web/attach.js.)
    const types = [...(e.clipboardData?.types ?? [])];
    if (types.includes('text/plain') || types.includes('text/html')) return;
    const files = [...(e.clipboardData?.files ?? [])];
    if (!waiting() || element(e)?.id !== 'composer-input' || !files.length) return;
    e.preventDefault();
    attachments(modules, e, files);
  });
  document.addEventListener('dragover', (e) => {
    if (!waiting() || !carriesFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    attachments(modules);
  });
  document.addEventListener('drop', (e) => {
    if (!waiting() || !carriesFiles(e)) return;
    const files = [...e.dataTransfer.files];
    // Chat exports dropped anywhere but on the composer are the app's to import (as in
    // src/web/attach.js).
    const onComposer = element(e)?.closest('form.composer');
    if (!onComposer && files.length && files.every((f) => /\.(json|zip)$/i.test(f.name))) return;
    e.preventDefault();
    e.stopPropagation();
    attachments(modules, e, files);
  });
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
