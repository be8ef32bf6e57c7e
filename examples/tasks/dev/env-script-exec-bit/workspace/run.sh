#!/usr/bin/env bash
# Builds the static site into dist/ by running every step in steps/ in order.
set -euo pipefail
cd "$(dirname "$0")"
for step in steps/*; do
    echo "==> $step"
    "./$step"
done
echo "site built in dist/"
