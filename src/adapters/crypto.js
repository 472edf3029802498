// End-to-end encryption for sync (the format: crates/core/src/sync/envelope.rs), with WebCrypto
// only: PBKDF2-SHA256 derives 256 bits from the passphrase (Unicode NFC, so every system types
// the same one) and the account's salt; HKDF-SHA256 expands them into an AES-256-GCM key for
// the objects and an HMAC-SHA256 key for their names. Neither key can be exported or read back
// from the page. Each object is sealed with its name as additional data, so an object moved
// under another name does not open.
const utf8 = new TextEncoder();

function subtle() {
  if (!globalThis.crypto || !crypto.subtle) throw new Error('insecure');
  return crypto.subtle;
}

export async function deriveKeys(passphrase, salt, iterations) {
  const s = subtle();
  const base = await s.importKey('raw', utf8.encode(passphrase.normalize('NFC')), 'PBKDF2', false, ['deriveBits']);
  const bits = await s.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, base, 256);
  const root = await s.importKey('raw', bits, 'HKDF', false, ['deriveKey']);
  const expand = (info, algorithm, usages) =>
    s.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: utf8.encode(info) }, root, algorithm, false, usages);
  const aes = await expand('satori-sync objects', { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt']);
  const mac = await expand('satori-sync names', { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign']);
  return { aes, mac };
}

export function randomBytes(n) {
  return crypto.getRandomValues(new Uint8Array(n));
}

export async function encrypt(keys, nonce, name, bytes) {
  const params = { name: 'AES-GCM', iv: nonce, additionalData: utf8.encode(name) };
  return new Uint8Array(await subtle().encrypt(params, keys.aes, bytes));
}

// The plaintext, or null when the ciphertext fails its tag (a wrong key, changed bytes, or
// another object's name).
export async function decrypt(keys, nonce, name, bytes) {
  try {
    const params = { name: 'AES-GCM', iv: nonce, additionalData: utf8.encode(name) };
    return new Uint8Array(await subtle().decrypt(params, keys.aes, bytes));
  } catch (e) {
    if (e && e.name === 'OperationError') return null;
    throw e;
  }
}

export async function keyedName(keys, text) {
  const sig = new Uint8Array(await subtle().sign('HMAC', keys.mac, utf8.encode(text)));
  return Array.from(sig, (b) => b.toString(16).padStart(2, '0')).join('');
}
