#!/usr/bin/env bash
# README command 2: install what is missing, then run every test layer:
#   1. format and lint   2. native cargo tests (core, tidy)
#   3. browser tests of the adapters (wasm-bindgen-test in headless Chromium)
#   4. release build of dist/   5. end-to-end tests in headless Chromium (fake + real LLM server)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"

step() { printf '\n==== %s ====\n' "$*"; }

step "cargo fmt --check"
cargo fmt --check -p satori -p satori-core
step "cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
step "native tests"
# The exact tokenizer's tests read the token tables the build makes from npm's js-tiktoken.
node scripts/bpe-tables.mjs "$ROOT/target/bpe"
cargo test --workspace
# The vendored markdown parser's own tests (its entity table is Satori's: vendor/pulldown-cmark/VENDORED.md).
cargo test -p pulldown-cmark --lib
step "the in-browser model against llama.cpp's greedy answers (release: a forward pass per token)"
cargo test --release --test llm
step "the in-browser model's SIMD128 kernels against the plain ones (wasm, in Node)"
RUSTFLAGS="-C target-feature=+simd128" CARGO_TARGET_DIR="$ROOT/target/llm-simd" \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --target wasm32-unknown-unknown --test llm_simd

step "browser tests of the adapters (wasm-bindgen-test, headless Chromium)"
SERVER_LOG="$(mktemp)"
node tests/web-support/server.mjs >"$SERVER_LOG" 2>&1 < <(sleep 100000) &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do grep -q listening "$SERVER_LOG" && break; sleep 0.1; done
SATORI_TEST_SERVER="$(sed -n 's/^listening //p' "$SERVER_LOG")"
[ -n "$SATORI_TEST_SERVER" ] || { echo "test server did not start"; cat "$SERVER_LOG"; exit 1; }
# A real WebDAV server (WsgiDAV) for the sync adapter, with a user and a password.
DAV_ROOT="$(mktemp -d)"
DAV_LOG="$(mktemp)"
"${SATORI_CACHE:-$HOME/.cache/satori}/dav-venv/bin/python" tests/e2e/support/dav-server.py \
  --root "$DAV_ROOT" --user ann --password 'pw 密码' >"$DAV_LOG" 2>&1 &
DAV_PID=$!
trap 'kill "$SERVER_PID" "$DAV_PID" 2>/dev/null || true; rm -rf "$DAV_ROOT"' EXIT
for _ in $(seq 1 100); do grep -q listening "$DAV_LOG" && break; sleep 0.1; done
SATORI_TEST_DAV="$(sed -n 's/^listening //p' "$DAV_LOG")"
[ -n "$SATORI_TEST_DAV" ] || { echo "WebDAV test server did not start"; cat "$DAV_LOG"; exit 1; }
SATORI_TEST_SERVER="$SATORI_TEST_SERVER" SATORI_TEST_DAV="$SATORI_TEST_DAV" CHROMEDRIVER=/usr/bin/chromedriver \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --target wasm32-unknown-unknown --test web
kill "$SERVER_PID" "$DAV_PID" 2>/dev/null || true
rm -rf "$DAV_ROOT"
trap - EXIT

step "release build"
bash scripts/build.sh

step "end-to-end tests (headless Chromium)"
# The shell expands the pattern into file names: newer Node versions no longer accept a
# directory argument, and Node 20 does not expand a quoted glob itself.
node --test --test-concurrency=1 tests/e2e/*.test.mjs
