// The bytes of attached files, kept in this browser: IndexedDB `satori-attachments`, store `files`,
// one record per content — {hash, mime, size, data: Blob, at, by}, keyed by the SHA-256 of the
// bytes (lowercase hex); `data` is an ArrayBuffer where the browser cannot keep a Blob (WebKit in a
// private window); `at` is when it was last attached and `by` which tab attached it. A record's
// bytes are written once and never changed: the same file attached twice, in one chat or two, is
// one record. Messages name their files by hash; the bytes stay out of the chat records
// (localStorage would not hold them). What no chat names any more is deleted by `sweep`, which the
// dialogs module runs after a chat is deleted.
//
// Written by the attachments module (src/web/attach.js) and by an import that restores files; read
// by the attachments module for thumbnails, by the app when it sends a message (`dataUrl` for an
// image, `text` for a text file or a PDF's text), and by an export that carries files. Each call
// opens the database, does one transaction and closes it (as src/adapters/idb.js does).
const DB = 'satori-attachments';
const STORE = 'files';

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'hash' });
    req.onsuccess = () => {
      const db = req.result;
      db.onversionchange = () => db.close();
      resolve(db);
    };
    req.onerror = () => reject(req.error);
    req.onblocked = () => reject(new Error('the browser database is held by another tab'));
  });
}

// Runs `act(store)` in one transaction; resolves, once it has completed, to what `act` returned
// (a request: its result). Rejects with the browser's own error (`QuotaExceededError` when the
// storage is full).
async function run(mode, act) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      let out = act(tx.objectStore(STORE));
      if (out instanceof IDBRequest) {
        const req = out;
        req.onsuccess = () => (out = req.result);
      }
      tx.oncomplete = () => resolve(out ?? null);
      tx.onerror = (e) => reject(e.target.error || tx.error);
      tx.onabort = () => reject(tx.error || new Error('the browser database refused the write'));
    });
  } finally {
    db.close();
  }
}

/**
 * Keeps `blob` as the file `hash` of type `mime`, unless it is kept already. Resolves when it is
 * written (true) or was there (false).
 */
export async function putFile(hash, mime, blob) {
  try {
    // As a plain Blob of the type kept (a File would keep its name and date too).
    return await add(hash, mime, blob.slice(0, blob.size, mime));
  } catch (e) {
    if (e && e.name === 'QuotaExceededError') throw e;
    // WebKit cannot keep a Blob in a private window (nor under automation): the bytes, then.
    return add(hash, mime, await blob.arrayBuffer());
  }
}

// This page (every copy of this file in its modules shares it): a record attached here and still
// in this page's composer is known to the sweep; one another tab attached lately may be in its.
const TAB = (globalThis.__satoriTab ??= Math.random().toString(36).slice(2));

async function add(hash, mime, data) {
  const found = await run('readwrite', (store) => {
    const found = { wrote: false };
    store.getKey(hash).onsuccess = (e) => {
      if (e.target.result !== undefined) return;
      store.add({ hash, mime, size: data.size ?? data.byteLength, data, at: Date.now(), by: TAB });
      found.wrote = true;
    };
    return found;
  });
  if (found.wrote) return true;
  // Attached again: when and where, for the sweep — in a write of its own, so a file kept
  // already never needs room to be attached again (a failed mark is no failure). Deleted by
  // another tab's sweep in between: written after all.
  const seen = await touch([hash]).catch(() => [hash]);
  return seen.includes(hash) ? false : add(hash, mime, data);
}

/**
 * Marks the files `hashes` that are kept as attached now, in this page; resolves to those it
 * found.
 */
export function touch(hashes) {
  return run('readwrite', (store) => {
    const found = [];
    for (const hash of hashes) {
      store.get(hash).onsuccess = (e) => {
        const kept = e.target.result;
        if (!kept) return;
        store.put({ ...kept, at: Date.now(), by: TAB });
        found.push(hash);
      };
    }
    return found;
  });
}

// A record's bytes as a Blob of its type (kept as a Blob, or as an ArrayBuffer by `putFile`).
const blobOf = (record) =>
  record.data instanceof Blob ? record.data : new Blob([record.data], { type: record.mime });

/** The bytes of file `hash`, or null when this browser does not have them. */
export async function getBlob(hash) {
  const record = await run('readonly', (store) => store.get(hash));
  return record ? blobOf(record) : null;
}

/** File `hash` as a `data:` URL of its type (an image sent to a model), or null. */
export async function dataUrl(hash) {
  const record = await run('readonly', (store) => store.get(hash));
  if (!record) return null;
  const read = await new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blobOf(record));
  });
  // The type as kept (an empty file's URL has none).
  return `data:${record.mime};base64,${read.slice(read.indexOf(',') + 1)}`;
}

/** File `hash` as text (UTF-8), or null. */
export async function text(hash) {
  const blob = await getBlob(hash);
  return blob ? blob.text() : null;
}

/** The hashes of every file kept. */
export function hashes() {
  return run('readonly', (store) => store.getAllKeys());
}

/** Deletes the files `hashes` (those not kept are no error). */
export function remove(hashes) {
  return run('readwrite', (store) => {
    for (const hash of hashes) store.delete(hash);
  });
}

/**
 * Deletes every file not in `named` (the hashes stored chats, drafts and this page's composer
 * name), except one another tab attached in the last `recentMs` — its composer may hold it, not
 * yet sent. Resolves to how many were deleted. One transaction: a file attached meanwhile waits
 * for it, then is written anew.
 */
export function sweep(named, recentMs) {
  const keep = new Set(named);
  const since = Date.now() - recentMs;
  return run('readwrite', (store) => {
    const gone = { n: 0 };
    store.openCursor().onsuccess = (e) => {
      const cursor = e.target.result;
      if (!cursor) return;
      const { hash, at = 0, by } = cursor.value;
      if (!keep.has(hash) && !(by !== TAB && at > since)) {
        cursor.delete();
        gone.n += 1;
      }
      cursor.continue();
    };
    return gone;
  }).then((gone) => gone.n);
}

/** The SHA-256 of `data` (a Blob or bytes), in lowercase hex. Needs a secure context. */
export async function sha256(data) {
  const bytes = data instanceof Blob ? await data.arrayBuffer() : data;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}
