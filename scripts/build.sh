#!/usr/bin/env bash
# Release build of the web app into dist/ (trunk, offline, pinned tools), then moves trunk's
# inline loader script into a file so the Content-Security-Policy needs no 'unsafe-inline'.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"
cd "$ROOT"
trunk build --release --offline "$@"
node scripts/postbuild.mjs dist
