# Hidden check of c-format-specifier: ./disk-usage prints the right count,
# total and largest file for the pristine sizes.txt and for another input.
set -euo pipefail
make
expect() {
    python3 -c '
import sys
rows = [(n, int(s)) for n, s in (l.split() for l in open(sys.argv[1]) if l.strip())]
print(f"files: {len(rows)}")
print(f"total: {sum(s for _, s in rows)} bytes")
name, size = max(rows, key=lambda r: r[1])
print(f"largest: {name} ({size} bytes)")
' "$1"
}
other="$(mktemp)"
trap 'rm -f "$other"' EXIT
printf 'a.iso 3221225472\nb.txt 12\nc.img 10737418240\n' >"$other"
for input in "$TASK_DIR/workspace/sizes.txt" "$other"; do
    expected="$(expect "$input")"
    actual="$(./disk-usage "$input")"
    if [ "$actual" != "$expected" ]; then
        printf 'for %s expected:\n%s\ngot:\n%s\n' "$input" "$expected" "$actual"
        exit 1
    fi
done
