// Splits an interface table (src/web/<lang>.json) for the page: the entries the app itself can
// draw before its first paint — those whose literal pieces are all in the app's wasm — go into
// the table loaded before the app draws; the rest (texts of the lazy modules' dialogs, their
// errors) into one loaded right after. Both are minified under hashed names in OUT.
// Usage: node scripts/lang-tables.mjs SOURCE.json APP.wasm OUT NAME  → prints the two
// `table:NAME=…` and `table:NAME-more=…` arguments for scripts/postbuild.mjs.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, basename } from 'node:path';

const [source, wasmPath, out, name] = process.argv.slice(2);
const table = JSON.parse(readFileSync(source, 'utf8'));
const wasm = readFileSync(wasmPath).toString('latin1');
const first = {};
const more = {};
for (const [key, value] of Object.entries(table)) {
  const pieces = key.split(/\{\d+\}/).filter((p) => p.length > 0);
  const inApp = pieces.every((p) => wasm.includes(Buffer.from(p, 'utf8').toString('latin1')));
  (inApp ? first : more)[key] = value;
}
mkdirSync(out, { recursive: true });
const args = [];
for (const [suffix, entries] of [['', first], ['-more', more]]) {
  const text = JSON.stringify(entries);
  const file = `${name}${suffix}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`;
  writeFileSync(join(out, file), text);
  args.push(`table:${name}${suffix}=${basename(out)}/${file}`);
}
console.error(`${name}: ${Object.keys(first).length} entries before the first paint, ${Object.keys(more).length} after`);
console.log(args.join('\n'));
