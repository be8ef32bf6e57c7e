#!/bin/bash
# Build build/calc from the sources in src/.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p build
gcc -std=c11 -Wall -Wextra -O2 -Iheaders -o build/calc src/main.c src/ops.c
echo "built build/calc"
