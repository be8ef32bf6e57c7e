# Hidden check of c-bar-chart: ./bars draws one '#' per unit, for the
# pristine votes.txt and for another input.
set -euo pipefail
make
expect() {
    python3 -c '
import sys
for line in open(sys.argv[1]):
    name, count = line.split()
    print(f"{name:<12}" + "#" * int(count))
' "$1"
}
other="$(mktemp)"
trap 'rm -f "$other"' EXIT
printf 'red 2\ngreen 10\nblue 1\n' >"$other"
for input in "$TASK_DIR/workspace/votes.txt" "$other"; do
    expected="$(expect "$input")"
    actual="$(./bars "$input")"
    if [ "$actual" != "$expected" ]; then
        printf 'for %s expected:\n%s\ngot:\n%s\n' "$input" "$expected" "$actual"
        exit 1
    fi
done
