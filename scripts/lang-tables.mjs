// Splits an interface table (src/web/<lang>.json) for the page: the entries of the texts on the
// first screen (src/web/first-screen.txt) go into the table the app waits for before it draws;
// every other entry (dialogs, errors, notices, the lazy modules' texts) into the table loaded
// right after the first paint. Both are minified under hashed names in OUT.
// Usage: node scripts/lang-tables.mjs SOURCE.json FIRST-SCREEN.txt OUT NAME → prints the
// `table:NAME=…` and `table:NAME-more=…` arguments for scripts/postbuild.mjs.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, basename } from 'node:path';

const [source, firstScreen, out, name] = process.argv.slice(2);
const table = JSON.parse(readFileSync(source, 'utf8'));
const wanted = readFileSync(firstScreen, 'utf8')
  .split('\n')
  .filter((line) => line.length > 0 && !line.startsWith('#'));
const missing = wanted.filter((text) => !Object.hasOwn(table, text));
if (missing.length > 0) {
  throw new Error(`${basename(source)} has no entry for these first-screen texts: ${JSON.stringify(missing)}`);
}
const first = {};
const more = {};
for (const [key, value] of Object.entries(table)) (wanted.includes(key) ? first : more)[key] = value;
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
