#!/usr/bin/env bash
# Turn each content/*.txt into dist/<name>.html: the first line is the title,
# the rest are paragraphs separated by blank lines.
set -euo pipefail
for src in content/*.txt; do
    name="$(basename "$src" .txt)"
    {
        printf '<!doctype html>\n<title>%s</title>\n' "$(head -n 1 "$src")"
        printf '<h1>%s</h1>\n' "$(head -n 1 "$src")"
        tail -n +2 "$src" | awk 'BEGIN { RS = ""; } { print "<p>" $0 "</p>" }'
    } >"dist/$name.html"
done
