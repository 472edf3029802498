#!/usr/bin/env bash
# A release tarball of the web app: builds dist/ (scripts/build.sh) and packs it, precompressed
# copies and all, into target/tarballs/satori-<version>.tar.gz — unpack it into any static host's
# folder (see the README's Self-hosting). Prints the tarball's path.
#   --no-build   pack the dist/ that is there (named after the commit checked out now)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
case "${1:-}" in
  "") bash scripts/build.sh >&2 ;;
  --no-build) ;;
  *) echo "usage: bash scripts/release.sh [--no-build]" >&2; exit 2 ;;
esac
[ -f dist/index.html ] || { echo "release: no build in dist/ (run without --no-build)" >&2; exit 1; }
VERSION="$(git describe --tags --always --dirty 2>/dev/null || echo unversioned)"
OUT="$ROOT/target/tarballs/satori-$VERSION.tar.gz"
mkdir -p "$(dirname "$OUT")"
# Sorted names, fixed owner and times: the same build gives the same tarball.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2026-01-01 00:00Z' \
  -C dist -cf - . | gzip -9 -n > "$OUT"
echo "$OUT"
