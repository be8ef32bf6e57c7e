#!/bin/sh
# Count the votes in a file (one name per line, blank lines ignored) and
# print `name: votes` lines, most votes first, ties by name.
set -eu
declare -A votes=()
while IFS= read -r name || [[ -n "$name" ]]; do
    name="${name,,}"
    [[ -z "${name// /}" ]] && continue
    votes[$name]=$(( ${votes[$name]:-0} + 1 ))
done <"${1:?usage: tally.sh FILE}"
for name in "${!votes[@]}"; do
    printf '%s: %d\n' "$name" "${votes[$name]}"
done | sort -t: -k2,2nr -k1,1
