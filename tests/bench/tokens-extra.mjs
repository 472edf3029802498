// The satori-tokens wasm module as a tokenizer for ../shared/bench/tokbench/bench.mjs
// (`--extra`; the interface is documented at the top of bench.mjs). tokens-o200k.mjs and
// tokens-cl100k.mjs pick the encoding. Expects, next to this file (tests/bench/tokens.sh lays
// them out): pkg/ (wasm-bindgen --target web output of satori-tokens, after wasm-opt) and
// tables/ (o200k_base.bpe, cl100k_base.bpe from scripts/bpe-tables.mjs).
import initWasm, { load, count as countIn, encode as encodeIn, reset } from './pkg/satori-tokens.js';

/** The bench exports for `encoding`; `init` fetches the module and the table and loads it. */
export function make(encoding) {
  return {
    name: 'satori-tokens',
    encoding,
    async init() {
      await initWasm();
      const res = await fetch(new URL(`./tables/${encoding}.bpe`, import.meta.url));
      if (!res.ok) throw new Error(`tables/${encoding}.bpe: HTTP ${res.status}`);
      load(encoding, new Uint8Array(await res.arrayBuffer()));
    },
    count: (text) => countIn(encoding, text),
    encode: (text) => encodeIn(encoding, text),
    reset, // empties the piece caches
  };
}
