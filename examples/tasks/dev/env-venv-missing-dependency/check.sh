# Hidden check of env-venv-missing-dependency: tabulate is installed inside
# .venv (not only visible from the system), requirements.txt lists it and
# still lists PyYAML, and `.venv/bin/python disk_report.py` prints the table.
set -euo pipefail
test -x .venv/bin/python || { echo ".venv/bin/python is missing"; exit 1; }
where="$(.venv/bin/python -c 'import os, tabulate; print(os.path.realpath(tabulate.__file__))' 2>&1)" || { echo ".venv cannot import tabulate: $where"; exit 1; }
venv="$(realpath .venv)"
case "$where" in
    "$venv"/*) ;;
    *) echo "tabulate is imported from $where, not from the project's .venv"; exit 1 ;;
esac
python3 - <<'PY'
import re
import sys

names = []
for line in open("requirements.txt"):
    line = line.split("#", 1)[0].strip()
    if line and not line.startswith("-"):
        names.append(re.split(r"[\s\[<>=!~;@]", line, 1)[0].lower().replace("_", "-"))
if "tabulate" not in names:
    sys.exit(f"requirements.txt does not list tabulate: {names}")
if "pyyaml" not in names:
    sys.exit(f"requirements.txt lost PyYAML: {names}")
PY
out="$(.venv/bin/python disk_report.py)" || { echo "disk_report.py failed"; exit 1; }
printf '%s\n' "$out"
first="$(printf '%s\n' "$out" | grep -E 'db-1|web-1|web-2|backup' | head -n 1)"
printf '%s\n' "$first" | grep -qE '^web-1 +/var/log +20(\.0)? +18\.9 +94\.5 +FULL$' || { echo "the fullest disk (web-1 /var/log, 94.5 %) is not the first row"; exit 1; }
test "$(printf '%s\n' "$out" | grep -cE '^(web-1|web-2|db-1|backup) ')" = 6 || { echo "expected 6 disks in the table"; exit 1; }
