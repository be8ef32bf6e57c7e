#!/bin/bash
# Print how many words each chapter in chapters/ has, then the total.
set -euo pipefail
cd "$(dirname "$0")"
total=0
for f in chapters/*.txt; do
    n="$(./tools/words.sh "$f")"
    printf '%s: %d\n' "$(basename "$f" .txt)" "$n"
    total=$((total + n))
done
printf 'total: %d\n' "$total"
