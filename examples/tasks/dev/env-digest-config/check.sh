# Hidden check of env-digest-config: a digest.ini points digest.py at the
# project's logs/, and `python3 digest.py` writes digest.txt with the counts
# of WARNING and above in the task's pristine logs/*.log.
set -euo pipefail
if [ ! -f digest.ini ]; then
    echo "digest.ini is missing"
    exit 1
fi
log_dir="$(python3 -c 'import configparser; c = configparser.ConfigParser(); c.read("digest.ini"); print(c["paths"]["log_dir"])' || true)"
if [ "$(cd "$log_dir" 2>/dev/null && pwd -P)" != "$(cd logs && pwd -P)" ]; then
    echo "digest.ini's log_dir ($log_dir) is not the project's logs/ folder"
    exit 1
fi
rm -f digest.txt
python3 digest.py
expected="$(python3 - "$TASK_DIR/workspace/logs" <<'PY'
import pathlib
import sys
from collections import Counter

files = sorted(pathlib.Path(sys.argv[1]).glob("*.log"))
counts = Counter(
    fields[2] for path in files for line in path.read_text().splitlines()
    if len(fields := line.split()) >= 3
)
print(f"files: {len(files)}")
for level in ("WARNING", "ERROR", "CRITICAL"):
    print(f"{level}: {counts[level]}")
PY
)"
actual="$(cat digest.txt 2>/dev/null || echo '(no digest.txt)')"
if [ "$actual" != "$expected" ]; then
    printf 'expected digest.txt:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
