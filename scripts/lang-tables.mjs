// Splits an interface table (src/web/<lang>.json) for the page: the entries only the lazy modules
// write — every literal piece of the key is in a module's wasm and not all of them in the app's —
// go into a table loaded right after the first paint; everything else (the app's own texts, and
// texts put together at run time, such as a role's name with its description) into the table
// loaded before the app draws. Both are minified under hashed names in OUT.
// Usage: node scripts/lang-tables.mjs SOURCE.json APP.wasm OUT NAME MODULE.wasm…  → prints the
// `table:NAME=…` and `table:NAME-more=…` arguments for scripts/postbuild.mjs.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, basename } from 'node:path';

const [source, wasmPath, out, name, ...modulePaths] = process.argv.slice(2);
const table = JSON.parse(readFileSync(source, 'utf8'));
const wasm = readFileSync(wasmPath).toString('latin1');
const modules = modulePaths.map((p) => readFileSync(p).toString('latin1'));
if (modules.length === 0) throw new Error('no module wasm given');
const bytes = (piece) => Buffer.from(piece, 'utf8').toString('latin1');
const first = {};
const more = {};
for (const [key, value] of Object.entries(table)) {
  const pieces = key.split(/\{\d+\}/).filter((p) => p.length > 0);
  const inApp = pieces.every((p) => wasm.includes(bytes(p)));
  const inModules = pieces.every((p) => modules.some((m) => m.includes(bytes(p))));
  (inModules && !inApp ? more : first)[key] = value;
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
