// End-to-end encryption for sync (the format: crates/core/src/sync/envelope.rs), with WebCrypto
// only: PBKDF2-SHA256 derives 512 bits from the passphrase and the account's salt — an AES-256-GCM
// key for the objects and an HMAC-SHA256 key for their names. Neither key can be exported or
// read back from the page.
const utf8 = new TextEncoder();

function subtle() {
  if (!globalThis.crypto || !crypto.subtle) throw new Error('insecure');
  return crypto.subtle;
}

export async function deriveKeys(passphrase, salt, iterations) {
  const s = subtle();
  const base = await s.importKey('raw', utf8.encode(passphrase), 'PBKDF2', false, ['deriveBits']);
  const bits = new Uint8Array(await s.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, base, 512));
  const aes = await s.importKey('raw', bits.slice(0, 32), 'AES-GCM', false, ['encrypt', 'decrypt']);
  const mac = await s.importKey('raw', bits.slice(32), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  bits.fill(0);
  return { aes, mac };
}

export function randomBytes(n) {
  return crypto.getRandomValues(new Uint8Array(n));
}

export async function encrypt(keys, nonce, bytes) {
  return new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv: nonce }, keys.aes, bytes));
}

// The plaintext, or null when the ciphertext fails its tag (a wrong key, or changed bytes).
export async function decrypt(keys, nonce, bytes) {
  try {
    return new Uint8Array(await subtle().decrypt({ name: 'AES-GCM', iv: nonce }, keys.aes, bytes));
  } catch (e) {
    if (e && e.name === 'OperationError') return null;
    throw e;
  }
}

export async function keyedName(keys, text) {
  const sig = new Uint8Array(await subtle().sign('HMAC', keys.mac, utf8.encode(text)));
  return Array.from(sig, (b) => b.toString(16).padStart(2, '0')).join('');
}
