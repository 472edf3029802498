// Times loading the token tables into the satori-tokens wasm module in Node (V8, as Chromium):
//   node tests/bench/tokens-load.mjs DIR      (DIR as laid out by tests/bench/tokens.sh)
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = resolve(process.argv[2] ?? 'target/tokbench-extra');
const mod = await import(pathToFileURL(join(dir, 'pkg/satori-tokens.js')));
await mod.default({ module_or_path: readFileSync(join(dir, 'pkg/satori-tokens_bg.wasm')) });
for (const encoding of ['o200k_base', 'cl100k_base']) {
  const bytes = new Uint8Array(readFileSync(join(dir, 'tables', `${encoding}.bpe`)));
  const ms = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    mod.load(encoding, bytes);
    ms.push(performance.now() - t0);
  }
  const order = ms.map((x) => x.toFixed(0)).join(", ");
  ms.sort((a, b) => a - b);
  const probe = 'Hello, world! 你好，世界 🦀';
  console.log(`${encoding}: load() median ${ms[3].toFixed(1)} ms (min ${ms[0].toFixed(1)}, max ${ms[6].toFixed(1)}); ` +
    `calls in order: ${order} ms; ${bytes.length} bytes; count(${JSON.stringify(probe)}) = ${mod.count(encoding, probe)}`);
}
