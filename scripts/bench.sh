#!/usr/bin/env bash
# Benchmarks (numbers only, no assertions): release build sizes and time to an interactive
# composer, against a baseline page measured in the same browser; how much more history packed
# chat records fit than JSON ones, and what packing costs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
node tests/bench/first-load.mjs --dist dist "$@"
node tests/bench/storage.mjs
