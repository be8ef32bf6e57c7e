# Hidden check of env-bad-shebang: tools/csv2md.py is unchanged below its
# first line, executable, and run directly it uses the first python3 on the
# PATH; `make` builds docs/pricing.md with the Markdown table.
set -euo pipefail
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
if ! diff <(tail -n +2 "$TASK_DIR/workspace/tools/csv2md.py") <(tail -n +2 tools/csv2md.py) >/dev/null; then
    echo "tools/csv2md.py was changed beyond its first line"
    exit 1
fi
test -x tools/csv2md.py || { echo "tools/csv2md.py is not executable"; exit 1; }
rm -rf docs
make >"$dir/make.log" 2>&1 || { echo "make failed:"; cat "$dir/make.log"; exit 1; }
expected='| plan | monthly | yearly | seats |
|---|---|---|---|
| Starter | 9 | 90 | 1 |
| Team | 29 | 290 | 5 |
| Business | 79 | 790 | 25 |'
test "$(cat docs/pricing.md)" = "$expected" || { echo "docs/pricing.md is wrong:"; cat docs/pricing.md; exit 1; }
# A python3 earlier on the PATH must be the one that runs the script.
real="$(command -v python3)"
mkdir "$dir/bin"
printf '#!/bin/sh\ntouch "%s/used"\nexec "%s" "$@"\n' "$dir" "$real" >"$dir/bin/python3"
chmod +x "$dir/bin/python3"
PATH="$dir/bin:$PATH" ./tools/csv2md.py prices.csv >/dev/null
test -e "$dir/used" || { echo "./tools/csv2md.py does not run the python3 found on the PATH (its first line: $(head -n 1 tools/csv2md.py))"; exit 1; }
