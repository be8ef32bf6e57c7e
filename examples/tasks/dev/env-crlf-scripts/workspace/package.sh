#!/usr/bin/env bash
# Packs the app into dist/app-<version>.tar.gz.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/lib.sh

version="$(read_version)"
mkdir -p dist
out="dist/app-$version.tar.gz"
tar -czf "$out" VERSION src
count="$(tar -tzf "$out" | grep -vc '/$')"
log "built $out ($count files)"
