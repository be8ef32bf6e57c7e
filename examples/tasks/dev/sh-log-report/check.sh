# Hidden check of sh-log-report: report.txt has `name: count` for each .log
# file of logs/ (counted from the task's pristine copy), sorted by name.
set -euo pipefail
expected="$(cd "$TASK_DIR/workspace/logs" && for f in $(LC_ALL=C ls -- *.log); do
    echo "$f: $(wc -l <"$f")"
done)"
test -f report.txt
actual="$(cat report.txt)"
if [ "$actual" != "$expected" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
