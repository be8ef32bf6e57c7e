# Hidden check of env-script-not-executable: ./run.sh runs and prints the
# word count of each chapter (from the task's pristine copy), then the total.
set -euo pipefail
expected="$(cd "$TASK_DIR/workspace/chapters" && total=0 && for f in $(LC_ALL=C ls -- *.txt); do
    n=$(wc -w <"$f")
    echo "${f%.txt}: $n"
    total=$((total + n))
done && echo "total: $total")"
actual="$(./run.sh)"
if [ "$actual" != "$expected" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
