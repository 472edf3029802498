#!/usr/bin/env bash
# Benchmarks (numbers only, no assertions): release build sizes and time to an interactive
# composer, against a baseline page measured in the same browser; how much more history packed
# chat records fit than JSON ones, and what packing costs; a long reply streaming (main-thread
# time as it grows, long tasks); saving in a long chat; long chats (load, DOM, typing); sync through
# a real WebDAV server (requests and bytes of a first and an incremental sync); what formulas and
# diagrams add after a reply ends.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
node tests/bench/first-load.mjs --dist dist "$@"
node tests/bench/storage.mjs
node tests/bench/stream.mjs
node tests/bench/save.mjs
node tests/bench/rendered.mjs --runs 3
node tests/bench/attach.mjs --runs 3
node tests/bench/sync.mjs --chats 200 --messages 100
node tests/bench/sync.mjs --chats 1000 --messages 20
# The model in the tab: the engine alone, then inside the app.
bash tests/bench/llm.sh 3
node tests/bench/inbrowser.mjs --dist dist --runs 3
# Long chats (tests/bench/longchat/): the release build served on 127.0.0.1, stopped by its pid.
node tests/e2e/support/static-server.mjs --root dist --port 8124 >/dev/null 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
sleep 1
node tests/bench/longchat/longchat.mjs http://127.0.0.1:8124/ --adapter tests/bench/longchat/adapters/satori.mjs --messages 2000 --runs 3
node tests/bench/longchat/longchat.mjs http://127.0.0.1:8124/ --adapter tests/bench/longchat/adapters/satori.mjs --chats 50 --messages 40 --runs 3
