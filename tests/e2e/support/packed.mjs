// Packed chat records written the way Satori's z1 format is specified (crates/core/src/packed.rs),
// independently of Satori: Node's zlib and the characters in JS.
import zlib from 'node:zlib';

/** `json` (a chat record) packed: `z1:<deflated>,<json bytes>:<list line>\n<15 bits a char>`. */
export function pack(json) {
  const chat = JSON.parse(json);
  const bytes = zlib.deflateSync(Buffer.from(json, 'utf8'));
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    if (bits >= 15) {
      bits -= 15;
      out += String.fromCharCode(0x20 + ((acc >> bits) & 0x7fff));
      acc &= (1 << bits) - 1;
    }
  }
  if (bits > 0) out += String.fromCharCode(0x20 + ((acc << (15 - bits)) & 0x7fff));
  const entry = JSON.stringify({ id: chat.id, title: chat.title || 'Untitled chat', updated_at: chat.updated_at });
  return `z1:${bytes.length},${Buffer.byteLength(json)}:${entry}\n${out}`;
}
