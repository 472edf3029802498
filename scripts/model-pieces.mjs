// Splits the in-browser model's GGUF file into the pieces the page downloads: the first piece is
// the file's header (its metadata with the tokenizer, and the tensor list: about 1.8 MB for
// SmolLM2-135M), so tokens can be counted before the weights arrive; the weights follow in
// pieces of at most 16 MiB (the issue allows 50 MB; smaller pieces make an interrupted download
// lose less). Each piece is named by its content's hash; a manifest, also hash-named, lists
// them with their sizes and SRI hashes. Prints `table:llm-model=model/<manifest>` for
// scripts/postbuild.mjs.
// usage: node scripts/model-pieces.mjs GGUF OUTDIR(dist/model) NAME
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [gguf, out, name] = process.argv.slice(2);
if (!gguf || !out || !name) {
  console.error('usage: node scripts/model-pieces.mjs GGUF OUTDIR NAME');
  process.exit(2);
}
const data = readFileSync(gguf);
const PIECE = 16 * 1024 * 1024;

// The end of the header: magic, version, counts, metadata, tensor infos (GGUF v2/v3).
function headerEnd(b) {
  let pos = 0;
  const u32 = () => { const v = b.readUInt32LE(pos); pos += 4; return v; };
  const u64 = () => { const v = Number(b.readBigUInt64LE(pos)); pos += 8; return v; };
  const str = () => { const n = u64(); pos += n; };
  const SIZES = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
  const value = (t) => {
    if (t === 8) return str();
    if (t === 9) { const et = u32(); const n = u64(); for (let i = 0; i < n; i++) value(et); return; }
    if (!(t in SIZES)) throw new Error(`metadata type ${t}`);
    pos += SIZES[t];
  };
  if (b.toString('latin1', 0, 4) !== 'GGUF') throw new Error(`${gguf} is not a GGUF file`);
  pos = 4;
  const version = u32();
  if (version < 2 || version > 3) throw new Error(`GGUF version ${version}`);
  const tensors = u64();
  const meta = u64();
  for (let i = 0; i < meta; i++) { str(); value(u32()); }
  for (let i = 0; i < tensors; i++) { str(); const dims = u32(); pos += 8 * dims + 4 + 8; }
  return pos;
}

const cuts = [0, headerEnd(data)];
while (cuts[cuts.length - 1] < data.length) cuts.push(Math.min(cuts[cuts.length - 1] + PIECE, data.length));
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const pieces = [];
for (let i = 0; i + 1 < cuts.length; i++) {
  const bytes = data.subarray(cuts[i], cuts[i + 1]);
  const digest = createHash('sha256').update(bytes).digest();
  const file = `${name}-${i}-${digest.toString('hex').slice(0, 16)}.bin`;
  writeFileSync(join(out, file), bytes);
  pieces.push({ file, bytes: bytes.length, integrity: `sha256-${digest.toString('base64')}` });
}
const manifest = JSON.stringify({ name, bytes: data.length, pieces });
const file = `${name}-${createHash('sha256').update(manifest).digest('hex').slice(0, 16)}.json`;
writeFileSync(join(out, file), manifest);
console.log(`table:llm-model=model/${file}`);
