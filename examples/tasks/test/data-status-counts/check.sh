# Hidden check of data-status-counts: status_counts.txt has `code count` for
# each HTTP status in the task's pristine access.log, by code.
set -euo pipefail
expected="$(awk -F'"' '{split($3, f, " "); print f[1]}' "$TASK_DIR/workspace/access.log" \
    | sort | uniq -c | awk '{print $2, $1}')"
test -f status_counts.txt || { echo "status_counts.txt is missing"; exit 1; }
actual="$(cat status_counts.txt)"
if [ "$actual" != "$expected" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
