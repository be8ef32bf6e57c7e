# Commit the parse_timeout hunk alone (a patch with just that hunk applied
# to the index), then the rest.
set -euo pipefail
git diff -U0 fetch.py >/tmp/split-all.$$.patch
python3 - /tmp/split-all.$$.patch <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
head, *hunks = text.split("\n@@")
keep = [h for h in hunks if "float(" in h]
open(path, "w").write(head + "".join("\n@@" + h for h in keep) + "\n")
PY
git apply --cached --unidiff-zero /tmp/split-all.$$.patch
rm -f /tmp/split-all.$$.patch
git commit -q -m 'Fix parsing of fractional timeouts'
git add fetch.py README.md
git commit -q -m 'Add --dry-run option'
