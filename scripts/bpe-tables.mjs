#!/usr/bin/env node
// Writes the token tables of Satori's token counter (crates/core/src/bpe/) from the ranks shipped by the
// npm package js-tiktoken (pinned in package.json; no network at run time):
//
//   node scripts/bpe-tables.mjs OUTDIR      ->  OUTDIR/o200k_base.bpe, OUTDIR/cl100k_base.bpe
//
// The format is documented in crates/core/src/bpe/table.rs (the reader); in short: a header, the Unicode
// general-category runs the pre-tokenizer needs (made here with JavaScript `\p{…}` / `\s`
// regexes, so they are ECMAScript's — the same classes js-tiktoken and gpt-tokenizer match with),
// then every token, by rank, as a single byte or as two earlier tokens whose bytes it joins,
// stored as byte planes (ranks are < 2^24): that gzips 17% smaller than the tokens' bytes.
// The output is deterministic for a given js-tiktoken and Node (Unicode) version.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const FORMAT_VERSION = 1;
// Split pattern ids (crates/core/src/bpe/pretok.rs `Pattern`) and the exact js-tiktoken pattern each
// stands for: the generator refuses to write a table whose pattern it does not know.
const PATTERNS = {
  1: String.raw`('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  2: String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
};
const ENCODINGS = { o200k_base: 2, cl100k_base: 1 };

// Character classes (crates/core/src/bpe/pretok.rs `Class`), tested in this order.
const CLASSES = [
  ['newline', /[\r\n]/u], // 1
  ['space', /\s/u], // 2: ECMAScript \s other than \r \n
  ['upper', /[\p{Lu}\p{Lt}]/u], // 3
  ['lower', /\p{Ll}/u], // 4
  ['other letter', /[\p{Lm}\p{Lo}]/u], // 5
  ['mark', /\p{M}/u], // 6
  ['number', /\p{N}/u], // 7
]; // 0: anything else
const MAX_CODE_POINT = 0x10ffff;

function classOf(cp) {
  // Lone surrogates have no category; they never reach the counter (Rust strings are UTF-8).
  const s = cp >= 0xd800 && cp <= 0xdfff ? '\ufffe' : String.fromCodePoint(cp);
  for (let i = 0; i < CLASSES.length; i++) if (CLASSES[i][1].test(s)) return i + 1;
  return 0;
}

/** Runs of equal class from U+0000 to U+10FFFF: [[length, class], ...]. */
function classRuns() {
  const runs = [];
  let start = 0, cls = classOf(0);
  for (let cp = 1; cp <= MAX_CODE_POINT + 1; cp++) {
    const c = cp <= MAX_CODE_POINT ? classOf(cp) : -1;
    if (c !== cls) {
      runs.push([cp - start, cls]);
      start = cp;
      cls = c;
    }
  }
  return runs;
}

function varint(n, out) {
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
}

async function tokensOf(encoding) {
  const { default: ranks } = await import(`js-tiktoken/ranks/${encoding}`);
  if (ranks.pat_str !== PATTERNS[ENCODINGS[encoding]]) {
    throw new Error(`${encoding}: js-tiktoken's split pattern changed; update PATTERNS and pretok.rs`);
  }
  const tokens = [];
  for (const line of ranks.bpe_ranks.split('\n').filter(Boolean)) {
    const [, offset, ...b64] = line.split(' ');
    b64.forEach((t, i) => {
      tokens[Number(offset) + i] = Buffer.from(t, 'base64');
    });
  }
  for (let r = 0; r < tokens.length; r++) {
    const t = tokens[r];
    if (!t) throw new Error(`${encoding}: ranks are not dense (no token of rank ${r})`);
    if (t.length < 1 || t.length > 255) throw new Error(`${encoding}: token ${r} has ${t.length} bytes`);
    if (r >= SINGLE) throw new Error(`${encoding}: more than ${SINGLE} tokens`);
  }
  return tokens;
}

/**
 * Each token as [left, right]: two earlier ranks whose bytes it joins (of all such splits, the
 * one with the smallest sum of ranks, which gzips best), or [SINGLE, byte] for a one-byte token.
 */
const SINGLE = 0xffffff;
function splits(encoding, tokens) {
  const rank = new Map(tokens.map((t, r) => [t.toString('latin1'), r]));
  return tokens.map((t, r) => {
    if (t.length === 1) return [SINGLE, t[0]];
    const s = t.toString('latin1');
    let best = null;
    for (let k = 1; k < s.length; k++) {
      const left = rank.get(s.slice(0, k)), right = rank.get(s.slice(k));
      if (left < r && right < r && (!best || left + right < best[0] + best[1])) best = [left, right];
    }
    if (!best) throw new Error(`${encoding}: token ${r} is not two earlier tokens joined`);
    return best;
  });
}

function table(encoding, tokens, runs) {
  const ascii = (s) => [s.length, ...Buffer.from(s, 'ascii')];
  const head = [...Buffer.from('SBPE'), FORMAT_VERSION, ENCODINGS[encoding], ...ascii(encoding),
    ...ascii(process.versions.unicode)];
  const u32 = (n) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24];
  head.push(...u32(tokens.length), ...u32(runs.length));
  const runBytes = [];
  for (const [len, cls] of runs) {
    varint(len, runBytes);
    runBytes.push(cls);
  }
  const pairs = splits(encoding, tokens);
  const planes = [];
  for (const side of [0, 1]) {
    for (const shift of [16, 8, 0]) planes.push(Buffer.from(pairs.map((p) => (p[side] >>> shift) & 255)));
  }
  return Buffer.concat([Buffer.from(head), Buffer.from(runBytes), ...planes]);
}

const outdir = process.argv[2];
if (!outdir || process.argv.length > 3) {
  console.error('usage: node scripts/bpe-tables.mjs OUTDIR');
  process.exit(2);
}
mkdirSync(outdir, { recursive: true });
const runs = classRuns();
for (const encoding of Object.keys(ENCODINGS)) {
  const tokens = await tokensOf(encoding);
  const bytes = table(encoding, tokens, runs);
  const file = join(outdir, `${encoding}.bpe`);
  writeFileSync(file, bytes);
  const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(`${file}: ${tokens.length} tokens, ${runs.length} class runs (Unicode ` +
    `${process.versions.unicode}), ${kib(bytes.length)} raw, ${kib(gzipSync(bytes, { level: 9 }).length)} gzip -9`);
}
