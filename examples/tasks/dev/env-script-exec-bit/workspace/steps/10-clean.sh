#!/usr/bin/env bash
# Start from an empty dist/.
set -euo pipefail
rm -rf dist
mkdir -p dist
