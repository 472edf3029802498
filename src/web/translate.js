// Draws Satori in a language other than English (loaded by src/web/i18n.js only then). The Rust
// code writes its texts in English; this translator replaces, in every text node and in the
// attributes below, the English text by its entry in that language's table (src/web/zh-CN.json,
// built to dist/lang/ under a hashed name that the page gives in
// <meta name="satori-table:zh-cn">). It runs from a MutationObserver, so new and changed texts
// are translated before the browser paints, in the app and in every module's dialogs alike. A
// subtree marked translate="no" (messages, chat titles, prompt texts, code, names the user gave)
// is never touched; a translate="yes" part inside one (a button in a reply) is.
//
// Table: {"English": "中文"}. A key with {0}, {1}, … is a template for a text made at run time;
// each part it captures is translated in turn (an inner error, a role name). Exact texts first,
// then the template with the most literal characters; a text of several lines whose lines each
// have a translation is translated line by line. Numbers come formatted for the language from the
// app (formatNumber in i18n.js, Intl).

const ATTRS = ['aria-label', 'title', 'placeholder', 'alt', 'aria-description', 'aria-roledescription', 'label'];
const SKIP = new Set(['TEXTAREA', 'SCRIPT', 'STYLE', 'INPUT']);
// Satori's own controls inside text it does not translate: the markdown renderer's "Copy code"
// and "Preview" buttons (and a preview's "Run scripts" and its frame's title), a diagram's
// "Source" and why it was not drawn, task markers, hidden-character markers and the real host of a link in a reply.
const OURS = '[translate="yes"], .copy-code, .preview-code, .preview-run, .source-code, .diagram-failed, .code-preview iframe, .md-task, .md-hidden, .md-real-host';

let exact = null; // Map: English -> translation
let templates = []; // {re, to, order, need, weight}, most literal characters first
const tables = new Map(); // language -> Promise<[exact, templates]>
// What the app wrote and what this translator wrote instead, per text node and per attribute, so
// the app's next write is told from our own and English can be put back.
const textWas = new WeakMap(); // Text -> [english, translated, generation]
const attrWas = new WeakMap(); // Element -> Map(attr -> [english, translated, generation])
let observer = null;
let generation = 0; // which table a translated text was made with
let wanted = 'en'; // the language apply() draws, or is about to
const whole = new Map(); // language -> its whole table, compiled, once the rest has arrived
let asked = 0; // the latest request wins: one still loading its table is dropped
// What the page's language calls `text`, '' in English or without a translation (src/web/i18n.js
// `inLanguage`: the command palette searches its actions by the names the user reads).
globalThis.__satoriInLanguage = (text) => (wanted !== 'en' && exact && translate(text)) || '';

/**
 * Draw the page in `lang` from now on, the one asked for last winning (a table that cannot be
 * loaded leaves the page as it was and says why in the console).
 */
export async function use(lang) {
  const mine = ++asked; // `lang` is one of Satori's (src/web/i18n.js checks)
  try {
    await apply(lang, () => mine === asked);
    if (mine === asked) document.documentElement.lang = lang;
  } catch (e) {
    console.warn(`Satori: the ${lang} texts could not be loaded (${e && e.message}); the page stays as it was.`);
  }
}

/**
 * Draw the page in `lang` ('en': back to the English the app wrote), unless `current()` says the
 * request was overtaken while the table loaded. Rejects when the language's table cannot be
 * loaded (the page stays as it is).
 */
export default async function apply(lang, current = () => true) {
  if (lang === 'en') {
    wanted = 'en';
    if (observer) observer.disconnect();
    observer = null;
    restore(document.body);
    return;
  }
  wanted = lang;
  const loaded = await table(lang);
  if (!current()) return;
  // The whole table when the rest is in already (this language was drawn before).
  [exact, templates] = whole.get(lang) || loaded;
  if (!observer) {
    observer = new MutationObserver(changed);
    observer.observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: ATTRS,
    });
  }
  translateTree(document.body);
}

// The table of `lang` (`name` '' ) or the rest of it (`name` '-more'), as fetched.
async function fetchTable(lang, rest) {
  const name = `satori-table:${lang.toLowerCase()}${rest}`;
  const meta = document.querySelector(`meta[name="${name}"]`);
  if (!meta) throw new Error(`the page does not name ${name}`);
  const response = await fetch(new URL(meta.getAttribute('content'), document.baseURI));
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

// The app's first screen is drawn (src/web/i18n.js `appDrawn`, called by the app once mounted).
const drawn = new Promise((done) => {
  if (globalThis.__satoriDrawn) done();
  else globalThis.addEventListener?.('satori:drawn', done, { once: true }); // none in Node (tests)
});

// The texts of `lang` on the first screen (what the page waits for), then the rest (dialogs,
// errors, the lazy modules' texts), fetched once the first part is in and the app has drawn with
// it (a macrotask after it says so), added when it arrives; a rest that could not be fetched is tried again
// (three times, 5 s apart).
function table(lang) {
  let p = tables.get(lang);
  if (!p) {
    const rest = (tries) =>
      fetchTable(lang, '-more').catch((e) => {
        console.warn(`Satori: the rest of the ${lang} texts could not be loaded (${e && e.message}).`);
        if (tries > 1) return new Promise((done) => setTimeout(done, 5000)).then(() => rest(tries - 1));
        throw e;
      });
    p = fetchTable(lang, '').then((first) => {
      drawn.then(() => setTimeout(() =>
        rest(3)
          .then((others) => {
            const all = compile({ ...first, ...others });
            whole.set(lang, all);
            // Not drawing it (yet): apply() takes the whole table when it gets there.
            if (wanted !== lang || !observer) return;
            [exact, templates] = all;
            generation += 1; // texts translated with the first part only are translated again
            translateTree(document.body);
          })
          .catch(() => {}),
      ));
      return compile(first);
    });
    tables.set(lang, p);
    p.catch(() => tables.delete(lang));
  }
  return p;
}

/** A table object as a map of exact texts and a list of templates. Exported for tests. */
export function compile(entries) {
  const map = new Map();
  const list = [];
  for (const [from, to] of Object.entries(entries)) {
    if (!/\{\d+\}/.test(from)) {
      map.set(from, to);
      continue;
    }
    const chunks = from.split(/\{\d+\}/);
    const order = [...from.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1]));
    const source = chunks.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('([\\s\\S]+)');
    list.push({
      re: new RegExp(`^${source}$`),
      to,
      order,
      need: chunks.filter((c) => c.length > 0).sort((a, b) => b.length - a.length).slice(0, 1),
      weight: chunks.join('').length,
      lines: from.includes('\n'),
    });
  }
  list.sort((a, b) => b.weight - a.weight);
  return [map, list];
}

/** The translation of `text` (whitespace around it kept), or null. Exported for tests. */
export function translate(text, tableOf = [exact, templates]) {
  const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(text);
  if (!/[A-Za-z]/.test(m[2])) return null;
  const t = lookup(m[2], tableOf, 0);
  return t === null ? null : m[1] + t + m[3];
}

function lookup(s, [map, list], depth) {
  const hit = map.get(s);
  if (hit !== undefined) return hit;
  if (depth > 6) return null; // an error inside an error inside a sentence…
  const multi = s.includes('\n');
  // Several lines: a template written over lines first; then, when every line has a
  // translation of its own (start-up problems, one per line), line by line; else templates
  // whose parts span lines (a server's message of several lines inside a sentence).
  if (multi) {
    const whole = templates(true);
    if (whole !== null) return whole;
    const lines = s.split('\n').map((line) => (line.trim() ? translate(line, [map, list]) : line));
    if (lines.every((line) => line !== null)) return lines.join('\n');
  }
  return templates(false);

  function templates(linesOnly) {
    for (const t of list) {
      if (linesOnly && !t.lines) continue;
      if (!t.need.every((n) => s.includes(n))) continue;
      const m = t.re.exec(s);
      if (!m) continue;
      const parts = new Map();
      t.order.forEach((n, i) => parts.set(n, m[i + 1]));
      return t.to.replace(/\{(\d+)\}/g, (all, n) => {
        const part = parts.get(Number(n));
        if (part === undefined) return all;
        return translatePart(part, [map, list], depth);
      });
    }
    return null;
  }

  function translatePart(p, tableOf, d) {
    if (!/[A-Za-z]/.test(p)) return p;
    const lead = /^\s*/.exec(p)[0];
    const tail = /\s*$/.exec(p)[0];
    const inner = lookup(p.trim(), tableOf, d + 1);
    return inner === null ? p : lead + inner + tail;
  }
}

// Whether `el`'s attributes are outside translation (and its text, with `text`: what is typed into
// a field is never translated, its placeholder and name are).
function skipped(el, text = false) {
  if (!el) return true;
  if (text && SKIP.has(el.tagName)) return true;
  if (el.closest(OURS)) return false;
  const marked = el.closest('[translate]');
  return !!marked && marked.getAttribute('translate') === 'no';
}

// A text the user's (translate="no") unless it is exactly the one Satori writes there itself:
// `data-ours="Untitled chat"` on a chat title.
function ours(node) {
  const marked = node.parentElement && node.parentElement.closest('[translate="no"][data-ours]');
  return !!marked && node.data.trim() === marked.getAttribute('data-ours');
}

function changed(records) {
  for (const r of records) {
    if (r.type === 'characterData') {
      if (!skipped(r.target.parentElement, true) || ours(r.target)) translateText(r.target);
      else restoreText(r.target);
    } else if (r.type === 'attributes') {
      if (!skipped(r.target)) translateAttr(r.target, r.attributeName);
    } else {
      for (const n of r.addedNodes) {
        if (n.nodeType === Node.TEXT_NODE) {
          if (!skipped(n.parentElement, true) || ours(n)) translateText(n);
        } else if (n.nodeType === Node.ELEMENT_NODE) {
          translateTree(n);
        }
      }
    }
  }
}

// A text node this translator rewrote that now holds the user's text (a chat got its title):
// forget it.
function restoreText(node) {
  const was = textWas.get(node);
  if (was && was[1] !== node.data) textWas.delete(node);
}

function translateText(node) {
  const now = node.data;
  const was = textWas.get(node);
  if (was && was[1] === now && was[2] === generation) return; // our own write
  const english = was && was[1] === now ? was[0] : now;
  const to = translate(english);
  if (to === null) {
    textWas.delete(node);
    return;
  }
  textWas.set(node, [english, to, generation]);
  if (to !== now) node.data = to;
}

function translateAttr(el, name) {
  const now = el.getAttribute(name);
  let was = attrWas.get(el);
  const mine = was && was.get(name);
  if (now === null || (mine && mine[1] === now && mine[2] === generation)) return;
  const english = mine && mine[1] === now ? mine[0] : now;
  const to = translate(english);
  if (to === null) {
    if (mine) was.delete(name);
    return;
  }
  if (!was) attrWas.set(el, (was = new Map()));
  was.set(name, [english, to, generation]);
  if (to !== now) el.setAttribute(name, to);
}

// Every text and attribute under `root`, unless it or an element above it says translate="no".
function translateTree(root) {
  if (root.nodeType !== Node.ELEMENT_NODE) return;
  if (skipped(root)) {
    // Text inserted into a reply: only Satori's own controls in it (and a chat's title when it
    // is Satori's own name for it).
    for (const el of root.querySelectorAll(OURS)) translateTree(el);
    for (const t of root.childNodes) if (t.nodeType === Node.TEXT_NODE && ours(t)) translateText(t);
    return;
  }
  const inside = []; // translate="yes" parts of untranslated subtrees (a button in a reply)
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => {
      if (n.nodeType !== Node.ELEMENT_NODE) {
        return SKIP.has(n.parentElement.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
      }
      if (n.getAttribute('translate') !== 'no') return NodeFilter.FILTER_ACCEPT;
      inside.push(...n.querySelectorAll(OURS));
      if (n.hasAttribute('data-ours')) {
        for (const t of n.childNodes) if (t.nodeType === Node.TEXT_NODE && ours(t)) translateText(t);
      }
      return NodeFilter.FILTER_REJECT;
    },
  });
  for (let n = walker.currentNode; n; n = walker.nextNode()) {
    if (n.nodeType === Node.TEXT_NODE) translateText(n);
    else for (const a of ATTRS) if (n.hasAttribute(a)) translateAttr(n, a);
  }
  for (const el of inside) translateTree(el);
}

// Back to the English the app wrote, wherever this translator changed it.
function restore(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let n = walker.currentNode; n; n = walker.nextNode()) {
    if (n.nodeType === Node.TEXT_NODE) {
      const was = textWas.get(n);
      if (was && n.data === was[1]) n.data = was[0];
      textWas.delete(n);
    } else {
      const was = attrWas.get(n);
      if (!was) continue;
      for (const [name, [english, translated]] of was) {
        if (n.getAttribute(name) === translated) n.setAttribute(name, english);
      }
      attrWas.delete(n);
    }
  }
}
