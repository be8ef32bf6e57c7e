# Hidden check of py-cli-wc: wc.py prints `lines words chars` like wc, for
# the task's sample.txt and for another file.
set -euo pipefail
for f in "$TASK_DIR/workspace/sample.txt" "$TASK_DIR/other.txt"; do
    expected="$(wc -l <"$f") $(wc -w <"$f") $(wc -m <"$f")"
    actual="$(python3 wc.py "$f")"
    if [ "$actual" != "$expected" ]; then
        printf '%s: expected %s, got %s\n' "$(basename "$f")" "$expected" "$actual"
        exit 1
    fi
done
test "$(python3 wc.py sample.txt)" = "4 16 81"
