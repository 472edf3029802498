// Files attached to a message: picked with "Attach", pasted into the message box, or dropped on
// the page. Each shows at once as a chip in the composer (<ul id="attach-chips">) and is then
// read, two at a time:
// - an image (PNG, JPEG, WebP, GIF, or any other the browser decodes) is made the size a model
//   reads, off the page's thread (src/web/attach-worker.js);
// - a PDF's text is taken out by pdf.js (npm: a chunk of its own, loaded with the first PDF, its
//   worker beside it), page by page; a PDF without text (a scan) is kept without;
// - a text file (UTF-8 without NUL bytes, whatever its name) is kept as it is;
// - anything else is refused, and the chip says why.
// What is kept goes to this browser's IndexedDB under the SHA-256 of its bytes
// (src/web/attach-store.js); the chip then carries `data-attachment`, the line the app sends the
// message with (crates/core/src/attachment.rs: `{hash} {kind} {mime} {bytes} {width}x{height}
// {pages} {text hash or -} {name}`), and loses `data-pending`. Removing a chip leaves the bytes kept: another chat may
// hold the same file. (Nothing deletes the bytes no chat names yet.)
//
// On a sent message, the app's <ul class="attachments"> gets each image's thumbnail and each
// file's size; a file whose bytes are not in this browser (a chat imported or synced from
// another device) is marked `missing`.
//
// Loaded by src/web/rendered.js the first time it is needed, which hands over the event that
// needed it (`handle`); from then on the listeners installed here act, each event once.
import { getBlob, putFile, remove, sha256 } from './attach-store.js';

const MAX_BYTES = 25e6;
const MAX_PIXELS = 50e6;
// At most this many files are read at once (each decoded image or PDF takes memory).
const AT_ONCE = 2;
const IMAGE_EXT = new Set('png jpg jpeg jfif webp gif avif heic heif bmp'.split(' '));
// Names and types of text files; a file of any other name is text too when its bytes are.
const TEXT_EXT = new Set(
  ('txt text md markdown csv tsv json jsonl ndjson yaml yml toml xml html htm css scss js mjs cjs ts ' +
    'tsx jsx py rs go java kt kts c h cpp hpp cc cs rb php sh bash zsh fish ps1 bat sql ini cfg conf ' +
    'log tex bib r swift scala lua pl dart vue svelte env gitignore dockerfile makefile srt vtt').split(' '),
);
const TEXT_TYPE =
  /^text\/|^application\/((x-)?(json|yaml|javascript|sh|shellscript|tex|latex|ndjson|toml|sql)|xml|ecmascript)$|\+(json|xml)$/;

// Why a file is not attached: the end of "“{name}” is not attached: …" ({0}: the browser's or
// pdf.js's own words).
const WHY = {
  kind: 'Satori reads images (PNG, JPEG, WebP, GIF), PDFs and text files; this file is none of them.',
  binary: 'it is not text (binary data).',
  big: 'it is larger than 25 MB.',
  pixels: 'it has more than 50 megapixels.',
  unreadable: 'the browser cannot read this image.',
  password: 'it is protected by a password.',
  pdf: 'the PDF cannot be read ({0}).',
  reader: 'the PDF reader could not be loaded ({0}).',
  full: "the browser's storage is full: delete old chats or attachments, then attach it again.",
  store: 'it could not be kept in this browser ({0}).',
  other: 'it could not be read ({0}).',
};

class Refused extends Error {
  constructor(why, detail = '') {
    super(why);
    this.why = why;
    this.detail = detail;
  }
}

/** The end of the sentence that says why a file is not attached: the one place errors become words. */
function words(e) {
  if (e && e.name === 'QuotaExceededError') return WHY.full;
  const [why, detail] = e instanceof Refused ? [e.why, e.detail] : ['other', e && e.message];
  return WHY[why].replace('{0}', String(detail || 'unknown error').replace(/\.$/, ''));
}

let started = false;
const handled = new WeakSet(); // events already acted on (here, or handed over by rendered.js)

export default function start() {
  if (started) return;
  started = true;
  document.addEventListener('click', click);
  document.addEventListener('change', change);
  document.addEventListener('paste', paste);
  document.addEventListener('dragover', dragover);
  document.addEventListener('dragleave', dragleave);
  document.addEventListener('drop', drop);
  new MutationObserver(sweep).observe(document.body, { childList: true, subtree: true });
  sent(document.querySelectorAll(SENT));
}

/**
 * Acts on `event`, which caused this module to load (its listeners were not there yet). `files`:
 * what a paste or a drop carried, taken while it was dispatched (its data is gone after).
 */
export function handle(event, files) {
  if (event.type === 'click') click(event);
  else if (event.type === 'change') change(event);
  else if (event.type === 'paste' || event.type === 'drop') {
    if (handled.has(event)) return;
    handled.add(event);
    add(files || [...((event.clipboardData || event.dataTransfer)?.files ?? [])]);
  }
}

// "Attach" opens the file picker; × removes its chip.
function click(e) {
  const target = e.target instanceof Element ? e.target : null;
  if (!target || handled.has(e)) return;
  const x = target.closest('#attach-chips .chip-remove');
  if (x) {
    handled.add(e);
    discard(x.closest('li'));
  } else if (target.closest('button.attach')) {
    handled.add(e);
    document.getElementById('attach-input')?.click();
  }
}

function change(e) {
  const input = e.target;
  if (!input || input.id !== 'attach-input' || handled.has(e)) return;
  handled.add(e);
  add([...input.files]);
  input.value = '';
}

// A paste that carries text as well (cells copied from a spreadsheet come with a picture of them)
// pastes its text.
export const pastedFiles = (e) => {
  const types = [...(e.clipboardData?.types ?? [])];
  if (types.includes('text/plain') || types.includes('text/html')) return [];
  return [...(e.clipboardData?.files ?? [])];
};

function paste(e) {
  const files = pastedFiles(e);
  if (!e.target || e.target.id !== 'composer-input' || !files.length || handled.has(e)) return;
  handled.add(e);
  e.preventDefault();
  add(files);
}

// Files dragged over the page (not over a dialog): dropped anywhere, they are attached.
const carriesFiles = (e) =>
  !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files') &&
  !(e.target instanceof Element && e.target.closest('dialog'));

let leaving = 0;
function target(on) {
  clearTimeout(leaving);
  document.querySelector('form.composer')?.classList.toggle('drop-target', on);
}

function dragover(e) {
  if (!carriesFiles(e)) return;
  e.preventDefault();
  e.dataTransfer.dropEffect = 'copy';
  target(true);
}

// Leaving one element for another is followed by a `dragover` at once; leaving the page is not.
function dragleave(e) {
  if (!carriesFiles(e)) return;
  clearTimeout(leaving);
  leaving = setTimeout(() => target(false), 100);
}

function drop(e) {
  if (!carriesFiles(e)) return;
  target(false);
  const files = [...e.dataTransfer.files];
  if (forImport(e, files)) return;
  e.preventDefault();
  e.stopPropagation();
  if (handled.has(e)) return;
  handled.add(e);
  add(files);
}

// Chat exports (.json, .zip) dropped anywhere but on the composer are the app's to import (its
// own listener on the window opens "Import"); anything else, and anything dropped on the
// composer, is attached.
export const forImport = (e, files) =>
  files.length > 0 &&
  !(e.target instanceof Element && e.target.closest('form.composer')) &&
  files.every((f) => /\.(json|zip)$/i.test(f.name));

// ---- Chips ----

const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

/** `n` bytes for a reader: "980 B", "12.3 KB", "1.4 MB". */
function size(n) {
  if (!Number.isFinite(n)) return '';
  const [v, unit] = n < 1e3 ? [n, 'B'] : n < 1e6 ? [n / 1e3, 'KB'] : [n / 1e6, 'MB'];
  const lang = document.documentElement.lang || 'en';
  const digits = v < 100 ? 1 : 0;
  return `${new Intl.NumberFormat(lang, { maximumFractionDigits: digits, useGrouping: false }).format(v)} ${unit}`;
}

// Blob URLs of the thumbnails shown -> their <img>; revoked once the image has left the page.
const urls = new Map();
function thumb(blob) {
  const img = el('img', 'thumb');
  img.alt = '';
  img.src = URL.createObjectURL(blob);
  urls.set(img.src, img);
  return img;
}

function chip(file) {
  const li = el('li', 'chip');
  const name = el('span', 'name', file.name);
  name.translate = false;
  name.title = file.name; // (cut short when long)
  const x = el('button', 'chip-remove');
  x.type = 'button';
  x.setAttribute('aria-label', `Remove ${file.name}`);
  const mark = el('span', '', '×');
  mark.setAttribute('aria-hidden', 'true');
  x.append(mark);
  li.append(name, el('span', 'size', size(file.size)), x);
  return li;
}

// Files waiting for their turn to be read: [file, chip].
const waiting = [];
let reading = 0;

function add(files) {
  const list = document.getElementById('attach-chips');
  if (!list) return;
  for (const file of files) {
    const li = chip(file);
    li.dataset.pending = 'true';
    list.append(li);
    waiting.push([file, li]);
  }
  next();
}

function next() {
  while (reading < AT_ONCE && waiting.length) {
    const [file, li] = waiting.shift();
    if (!li.isConnected) continue; // removed before its turn
    reading += 1;
    attach(file, li).finally(() => {
      reading -= 1;
      next();
    });
  }
  busy();
}

// What the app reads when the message is sent (src/ui/chat.rs): the chips' lines, one per line,
// in the list's `data-lines`, and `data-pending` on it while a file is being read (the app then
// sends nothing: "Send" is disabled meanwhile).
function busy() {
  const list = document.getElementById('attach-chips');
  if (!list) return;
  const pending = !!list.querySelector('[data-pending]');
  list.toggleAttribute('data-pending', pending);
  const lines = [...list.querySelectorAll('li[data-attachment]')].map((li) => li.dataset.attachment);
  if (lines.length) list.dataset.lines = lines.join('\n');
  else delete list.dataset.lines;
  const send = document.querySelector('form.composer button[type="submit"]');
  if (send) send.disabled = pending;
}

// Reads and keeps `file`; its chip `li` (if still on the page) says what came of it.
async function attach(file, li) {
  let done;
  try {
    done = await read(file);
  } catch (e) {
    if (li.isConnected) failed(li, file, e);
    return;
  }
  if (!li.isConnected) return;
  if (done.thumb) li.prepend(thumb(done.thumb));
  li.querySelector('.size').textContent = size(done.attachment.bytes);
  li.dataset.attachment = line(done.attachment);
  li.removeAttribute('data-pending');
}

// An attachment as the one line the app reads (a name's control characters become spaces).
// (A name the app would not take — blank, or longer than 1 024 bytes — is shortened or named "file".)
const line = (a) => {
  let name = a.name.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  while (new TextEncoder().encode(name).length > 1024) name = name.slice(0, -1);
  if (!name.trim()) name = 'file';
  return [a.hash, a.kind, a.mime, a.bytes, `${a.width ?? 0}x${a.height ?? 0}`, a.pages ?? 0, a.text ?? '-', name].join(' ');
};

// The chip `li` of `file` becomes one that says why it is not attached (new, so that it is
// announced).
function failed(li, file, e) {
  const now = chip(file);
  now.classList.add('failed');
  now.setAttribute('role', 'alert');
  now.insertBefore(el('span', 'why', `“${file.name}” is not attached: ${words(e)}`), now.lastChild);
  const focused = li.contains(document.activeElement);
  li.replaceWith(now);
  if (focused) now.querySelector('.chip-remove').focus();
}

// × on a chip: it goes, and the focus to the next chip's ×, or the message box.
function discard(li) {
  if (!li) return;
  const focused = li.contains(document.activeElement);
  const then = li.nextElementSibling || li.previousElementSibling;
  li.remove();
  busy();
  if (focused) (then?.querySelector('.chip-remove') || document.getElementById('composer-input'))?.focus();
}

// ---- Reading ----

/** What `file` is kept as: {attachment (what the chip's line says), thumb (a Blob, for an image)}. */
async function read(file) {
  if (file.size > MAX_BYTES) throw new Refused('big');
  const head = new Uint8Array(await file.slice(0, 1 << 20).arrayBuffer());
  const format = sniff(head);
  const named = byName(file);
  if (named === 'text') return text(file, true);
  if (format === 'pdf' || named === 'pdf') return pdf(file);
  if (format || named === 'image') {
    const jpeg = format ? format === 'jpeg' : file.type === 'image/jpeg';
    return image(file, head, jpeg ? 'image/jpeg' : 'image/png');
  }
  return text(file, false);
}

// The format the bytes say: 'png', 'jpeg', 'gif', 'webp', 'pdf', or null.
function sniff(b) {
  const is = (at, ascii) => [...ascii].every((c, i) => b[at + i] === c.charCodeAt(0));
  if (is(0, '\x89PNG')) return 'png';
  if (is(0, '\xff\xd8\xff')) return 'jpeg';
  if (is(0, 'GIF8')) return 'gif';
  if (is(0, 'RIFF') && is(8, 'WEBP')) return 'webp';
  if (is(0, '%PDF-')) return 'pdf';
  return null;
}

// What the name and type say: 'pdf', 'image', 'text' or null.
function byName(file) {
  const name = file.name.toLowerCase();
  const ext = /\.([^.]+)$/.exec(name)?.[1] ?? name;
  const type = file.type.toLowerCase();
  if (type === 'application/pdf' || ext === 'pdf') return 'pdf';
  if (/^image\/(?!svg)/.test(type) || IMAGE_EXT.has(ext)) return 'image';
  if (TEXT_TYPE.test(type) || TEXT_EXT.has(ext)) return 'text';
  return null;
}

// The pixels of an image as its header says (PNG, GIF, WebP, JPEG: before decoding it), or 0.
function pixels(b) {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  try {
    if (b[0] === 0x89) return v.getUint32(16) * v.getUint32(20);
    if (b[0] === 0x47) return v.getUint16(6, true) * v.getUint16(8, true);
    if (b[0] === 0x52) {
      const chunk = String.fromCharCode(...b.subarray(12, 16));
      const u24 = (at) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
      if (chunk === 'VP8X') return (u24(24) + 1) * (u24(27) + 1);
      if (chunk === 'VP8L') {
        const bits = v.getUint32(21, true);
        return ((bits & 0x3fff) + 1) * (((bits >>> 14) & 0x3fff) + 1);
      }
      return (v.getUint16(26, true) & 0x3fff) * (v.getUint16(28, true) & 0x3fff);
    }
    // JPEG: the segments up to the frame header (SOF0–SOF15 but DHT, JPG, DAC).
    for (let at = 2; at + 9 < b.length; ) {
      const marker = b[at + 1];
      if (b[at] !== 0xff) return 0;
      if (marker === 0xff) at += 1;
      else if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return v.getUint16(at + 5) * v.getUint16(at + 7);
      } else if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) at += 2;
      else at += 2 + v.getUint16(at + 2);
    }
  } catch {
    // a header cut short: the decoded size is checked instead
  }
  return 0;
}

async function image(file, head, type) {
  if (pixels(head) > MAX_PIXELS) throw new Refused('pixels');
  const out = await resize(file, type);
  if (out.sourceWidth * out.sourceHeight > MAX_PIXELS) throw new Refused('pixels');
  const mime = out.blob.type || type;
  const hash = await digest(out.blob);
  await putFile(hash, mime, out.blob);
  const kept = await getBlob(hash);
  if (!kept) throw new Refused('store', 'not found after writing');
  const attachment = { name: file.name, kind: 'image', mime, bytes: kept.size, hash, width: out.width, height: out.height };
  return { attachment, thumb: kept };
}

// The resizing worker, started with the first image (false: it cannot draw, or did not start;
// the page does it then).
let worker = null;
let asked = 0;
const answers = new Map(); // request id -> its resolve

function stopWorker() {
  if (worker) worker.terminate();
  worker = false;
  for (const done of answers.values()) done({ unsupported: true });
  answers.clear();
}

function inWorker(file, type) {
  if (worker === null) {
    try {
      worker = new Worker(new URL('./attach-worker.js', import.meta.url), { type: 'module' });
      worker.onmessage = ({ data }) => {
        answers.get(data.id)?.(data);
        answers.delete(data.id);
      };
      worker.onerror = stopWorker;
    } catch {
      stopWorker();
    }
  }
  if (!worker) return Promise.resolve({ unsupported: true });
  const id = ++asked;
  return new Promise((done) => {
    answers.set(id, done);
    worker.postMessage({ id, file, type });
  });
}

async function resize(file, type) {
  const out = await inWorker(file, type);
  if (out.unsupported) {
    stopWorker();
    const { shrink } = await import('./attach-worker.js');
    try {
      return await shrink(file, type);
    } catch (e) {
      throw e.unreadable ? new Refused('unreadable') : e;
    }
  }
  if (out.error !== undefined) throw out.unreadable ? new Refused('unreadable') : new Error(out.error);
  return out;
}

async function text(file, named) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (!utf8(bytes)) throw new Refused(named ? 'binary' : 'kind');
  const hash = await digest(bytes);
  await putFile(hash, 'text/plain', file);
  return { attachment: { name: file.name, kind: 'text', mime: 'text/plain', bytes: file.size, hash } };
}

const strict = new TextDecoder('utf-8', { fatal: true });
function utf8(bytes) {
  if (bytes.includes(0)) return false;
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

// pdf.js, imported once (again after a failed load).
let pdfjs = null;
function pdfReader() {
  pdfjs ??= import('pdfjs-dist').then((lib) => {
    lib.GlobalWorkerOptions.workerSrc = new URL('./pdf-worker.mjs', import.meta.url).href;
    return lib;
  });
  pdfjs.catch(() => (pdfjs = null));
  return pdfjs;
}

async function pdf(file) {
  let lib;
  try {
    lib = await pdfReader();
  } catch (e) {
    throw new Refused('reader', e && e.message);
  }
  const { pages, text } = await pdfText(lib, new Uint8Array(await file.arrayBuffer()));
  const hash = await digest(file);
  const wrote = [];
  let textHash = null;
  try {
    if (await putFile(hash, 'application/pdf', file)) wrote.push(hash);
    if (text !== null) {
      const blob = new Blob([text], { type: 'text/plain' });
      textHash = await digest(blob);
      if (await putFile(textHash, 'text/plain', blob)) wrote.push(textHash);
    }
  } catch (e) {
    // Nothing half kept: what was written for this file goes again.
    await remove(wrote).catch(() => {});
    throw e;
  }
  const attachment = { name: file.name, kind: 'pdf', mime: 'application/pdf', bytes: file.size, hash, pages };
  if (textHash) attachment.text = textHash;
  return { attachment };
}

// The text of each page of the PDF `data`, after a "--- Page N ---" line; null when no page has
// any (a scan). pdf.js runs without eval, fetches nothing (no character maps, standard fonts or
// wasm: a PDF that relies on them loses some of its text) and draws nothing.
async function pdfText(lib, data) {
  const task = lib.getDocument({
    data,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    useWasm: false,
    enableXfa: false,
    verbosity: 0,
  });
  try {
    let doc;
    try {
      doc = await task.promise;
    } catch (e) {
      throw e && e.name === 'PasswordException' ? new Refused('password') : new Refused('pdf', e && e.message);
    }
    let out = '';
    let any = false;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const { items } = await page.getTextContent();
      const text = items
        .map((item) => (item.str ?? '') + (item.hasEOL ? '\n' : ' '))
        .join('')
        .replace(/[ \t]+/g, ' ')
        .replace(/ ?\n ?/g, '\n')
        .trim();
      any ||= text.length > 0;
      out += `--- Page ${n} ---\n${text}\n`;
      page.cleanup();
    }
    return { pages: doc.numPages, text: any ? out : null };
  } finally {
    task.destroy();
  }
}

// ---- Hashes ----

/** SHA-256 of a Blob or bytes, in hex: WebCrypto, or (over plain http, where it is missing) here. */
async function digest(data) {
  if (globalThis.crypto?.subtle) return sha256(data);
  return sha256Here(new Uint8Array(data instanceof Blob ? await data.arrayBuffer() : data));
}

const primes = (n) => {
  const out = [];
  for (let k = 2; out.length < n; k++) if (out.every((p) => k % p)) out.push(k);
  return out;
};
let K = null;
function sha256Here(bytes) {
  const frac = (x) => ((x % 1) * 2 ** 32) | 0;
  K ??= Int32Array.from(primes(64), (p) => frac(Math.cbrt(p)));
  const H = Int32Array.from(primes(8), (p) => frac(Math.sqrt(p)));
  const n = bytes.length;
  const total = Math.ceil((n + 9) / 64) * 64;
  const m = new Uint8Array(total);
  m.set(bytes);
  m[n] = 0x80;
  const v = new DataView(m.buffer);
  v.setUint32(total - 8, Math.floor(n / 2 ** 29));
  v.setUint32(total - 4, (n << 3) >>> 0);
  const w = new Int32Array(64);
  const r = (x, k) => (x >>> k) | (x << (32 - k));
  for (let i = 0; i < total; i += 64) {
    for (let t = 0; t < 64; t++) {
      if (t < 16) w[t] = v.getInt32(i + t * 4);
      else {
        const a = w[t - 15];
        const b = w[t - 2];
        w[t] = (r(a, 7) ^ r(a, 18) ^ (a >>> 3)) + (r(b, 17) ^ r(b, 19) ^ (b >>> 10)) + w[t - 7] + w[t - 16];
      }
    }
    let [a, b, c, d, e, f, g, h] = H;
    for (let t = 0; t < 64; t++) {
      const t1 = (h + (r(e, 6) ^ r(e, 11) ^ r(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) | 0;
      const t2 = ((r(a, 2) ^ r(a, 13) ^ r(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      [h, g, f, e, d, c, b, a] = [g, f, e, (d + t1) | 0, c, b, a, (t1 + t2) | 0];
    }
    [a, b, c, d, e, f, g, h].forEach((x, k) => (H[k] += x));
  }
  return Array.from(H, (x) => (x >>> 0).toString(16).padStart(8, '0')).join('');
}

// ---- Sent messages ----

const SENT = '.attachments li[data-attachment]';
const shown = new WeakSet();

// Thumbnails and sizes for the attachments of sent messages in `items`.
function sent(items) {
  for (const li of items) {
    if (shown.has(li)) continue;
    shown.add(li);
    // The app writes each as its line (crates/core/src/attachment.rs); the name is the rest.
    const [hash, kind, , bytes, , , , ...name] = li.dataset.attachment.split(' ');
    li.dataset.hash = hash;
    li.dataset.kind = kind;
    const label = el('span', 'name', name.join(' '));
    label.translate = false;
    label.title = label.textContent;
    li.append(label);
    if (Number.isFinite(Number(bytes))) li.append(el('span', 'size', size(Number(bytes))));
    getBlob(li.dataset.hash).then(
      (blob) => found(li, blob),
      () => found(li, null),
    );
  }
}

function found(li, blob) {
  if (!blob) {
    li.classList.add('missing');
    // (Inside a message, which the translator leaves alone: said in the page's language here.)
    li.title = globalThis.__satoriInLanguage?.('Not on this device') || 'Not on this device';
  } else if (li.dataset.kind === 'image' && li.isConnected && !li.querySelector('.thumb')) {
    li.prepend(thumb(blob));
  }
}

// New messages' attachments shown; thumbnails gone from the page let go of their bytes.
function sweep(records) {
  // The app emptied the chips (the message went, or another chat was opened).
  if (records.some((r) => r.target.id === 'attach-chips' && r.removedNodes.length)) busy();
  const added = [];
  let removed = false;
  for (const record of records) {
    removed ||= record.removedNodes.length > 0;
    for (const node of record.addedNodes) {
      if (node.nodeType !== 1) continue;
      if (node.matches(SENT)) added.push(node);
      else if (node.firstElementChild) added.push(...node.querySelectorAll(SENT));
    }
  }
  if (added.length) sent(added);
  if (!removed) return;
  for (const [url, img] of urls) {
    if (img.isConnected) continue;
    URL.revokeObjectURL(url);
    urls.delete(url);
  }
}
