#!/usr/bin/env bash
# Release build of the web app into dist/:
#   1. trunk (offline, pinned tools) builds the app itself;
#   2. the markdown renderer (src/bin/satori-markdown.rs) becomes its own wasm module in
#      dist/md-<hash>/, loaded after the app is interactive (keeps the parser off the first load);
#   3. scripts/postbuild.mjs moves trunk's inline loader into a file (CSP without
#      'unsafe-inline') and names the markdown module in index.html.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"
cd "$ROOT"
trunk build --release --offline "$@"

MD_STAGE="$ROOT/target/markdown-module"
rm -rf "$MD_STAGE" && mkdir -p "$MD_STAGE"
cargo build --release --target wasm32-unknown-unknown --bin satori-markdown
wasm-bindgen --target web --no-typescript --out-dir "$MD_STAGE" \
  "$ROOT/target/wasm32-unknown-unknown/release/satori-markdown.wasm"
wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-reference-types --enable-multivalue --enable-mutable-globals \
  "$MD_STAGE/satori-markdown_bg.wasm" -o "$MD_STAGE/satori-markdown_bg.wasm"
HASH="$(find "$MD_STAGE" -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16)"
rm -rf "$ROOT"/dist/md-*
cp -r "$MD_STAGE" "$ROOT/dist/md-$HASH"
node scripts/postbuild.mjs dist "md-$HASH/satori-markdown.js"
