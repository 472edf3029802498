// Writes a gzip -9 (`.gz`) and a brotli 11 (`.br`) copy next to every file of the build that a
// browser fetches as text or wasm, so a static server can send them as they are (nginx
// `gzip_static` / `brotli_static`, Caddy `precompressed`, tests/e2e/support/static-server.mjs)
// instead of compressing on the fly (nginx's `gzip on` defaults to level 1). The token tables
// (`tokens/*.bin`) are stored compressed already and are left alone.
// usage: node scripts/precompress.mjs DIST
import { readdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { join, extname } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const dist = process.argv[2] ?? 'dist';
const KINDS = new Set(['.html', '.js', '.css', '.wasm', '.svg', '.json']);
let files = 0;
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) { walk(path); continue; }
    if (!KINDS.has(extname(name))) continue;
    const data = readFileSync(path);
    writeFileSync(`${path}.gz`, gzipSync(data, { level: 9 }));
    writeFileSync(`${path}.br`, brotliCompressSync(data, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
    }));
    files++;
  }
})(dist);
console.log(`precompressed ${files} files in ${dist}`);
