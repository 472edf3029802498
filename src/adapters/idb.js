// Satori's IndexedDB: one database of text records by key (sync's state: what this device holds
// of each synced chat, larger than localStorage should carry). Each call opens, does one
// transaction and closes, so an upgrade in another tab is never blocked for long.
const DB = 'satori';
const STORE = 'records';

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => {
      const db = req.result;
      db.onversionchange = () => db.close();
      resolve(db);
    };
    req.onerror = () => reject(req.error);
    req.onblocked = () => reject(new Error('the browser database is held by another tab'));
  });
}

async function run(mode, act) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      let result = null;
      const req = act(tx.objectStore(STORE));
      req.onsuccess = () => { result = req.result ?? null; };
      tx.oncomplete = () => resolve(result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error || new Error('the browser database refused the write'));
    });
  } finally {
    db.close();
  }
}

export function idbGet(key) {
  return run('readonly', (s) => s.get(key));
}

export function idbPut(key, text) {
  return run('readwrite', (s) => s.put(text, key));
}

export function idbDelete(key) {
  return run('readwrite', (s) => s.delete(key));
}
