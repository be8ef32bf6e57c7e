#!/usr/bin/env bash
# Prints the lowest, highest and average temperature of a weather station
# CSV (date,temp_c with a header row).
#
# Usage: bash tempstats.sh [temps.csv]
set -euo pipefail

file="${1:-temps.csv}"

awk -F, '
NR > 1 {
    if ($2 < min) min = $2
    if ($2 > max) max = $2
    sum += $2
}
END {
    printf "days: %d\n", NR - 1
    printf "min: %.1f\n", min
    printf "max: %.1f\n", max
    printf "avg: %.1f\n", sum / NR
}' "$file"
