#!/usr/bin/env bash
# Builds the satori-tokens wasm module and the token tables the way the release build does, lays
# them out next to the bench wrappers in target/tokbench-extra/, prints their sizes and the table
# load time, then runs the tokenizer benchmark (headless Chromium) for each encoding against
# gpt-tokenizer and js-tiktoken. Extra arguments go to bench.mjs (e.g. --runs 3 --no-kinds).
#   tests/bench/tokens.sh [bench.mjs args...]
#   env: BENCH (default ../shared/bench/tokbench/bench.mjs beside the checkout), OUT (results folder, default
#        target/tokbench-extra/results), CARGO_TARGET_DIR (default target)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"
cd "$ROOT"
BENCH="${BENCH:-$ROOT/../shared/bench/tokbench/bench.mjs}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
DIR="$ROOT/target/tokbench-extra"
OUT="${OUT:-$DIR/results}"
rm -rf "$DIR" && mkdir -p "$DIR/pkg" "$OUT"
cargo build --release --target wasm32-unknown-unknown --bin satori-tokens
wasm-bindgen --target web --no-typescript --out-dir "$DIR/pkg" \
  "$TARGET/wasm32-unknown-unknown/release/satori-tokens.wasm"
wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-reference-types --enable-multivalue --enable-mutable-globals \
  "$DIR/pkg/satori-tokens_bg.wasm" -o "$DIR/pkg/satori-tokens_bg.wasm"
node scripts/bpe-tables.mjs "$DIR/tables"
cp tests/bench/tokens-extra.mjs tests/bench/tokens-o200k.mjs tests/bench/tokens-cl100k.mjs "$DIR/"
size() { # raw, gzip -9, brotli -q 11
  printf '%-28s raw %8d  gzip -9 %8d  brotli %8d\n' "$(basename "$1")" "$(wc -c < "$1")" \
    "$(gzip -9c "$1" | wc -c)" \
    "$(node -e "const z=require('zlib');process.stdout.write(String(z.brotliCompressSync(require('fs').readFileSync(process.argv[1]),{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length))" "$1")"
}
for f in "$DIR/pkg/satori-tokens_bg.wasm" "$DIR/pkg/satori-tokens.js" "$DIR"/tables/*.bpe; do size "$f"; done
node tests/bench/tokens-load.mjs "$DIR"
export NODE_TOOLS="${NODE_TOOLS:-$ROOT/node_modules}"
for enc in o200k cl100k; do
  node "$BENCH" --extra "$DIR/tokens-$enc.mjs" --only "gpt-tokenizer/${enc}_base" --out "$OUT/tokbench-$enc.md" "$@"
done
echo "results: $OUT/tokbench-o200k.md $OUT/tokbench-cl100k.md"
