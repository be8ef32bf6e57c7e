# Hidden check of go-inventory-build: it builds with Qty an int, the tests
# pass and the report shows the exact value.
set -euo pipefail
grep -Eq '^[[:space:]]*Qty[[:space:]]+int([[:space:]]|$)' -- *.go || { echo "Item.Qty is no longer an int"; exit 1; }
go vet .
go test -count=1 .
expected="$(printf 'items: 5\nstock value: 1197.58\nlow stock: office chair, stapler, whiteboard')"
actual="$(go run .)"
if [ "$actual" != "$expected" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
