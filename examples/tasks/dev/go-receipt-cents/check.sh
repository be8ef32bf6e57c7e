# Hidden check of go-receipt-cents: the receipt for the pristine cart.csv and
# for a second cart, with every amount in dollars and two decimals.
set -euo pipefail
fail() { printf 'for %s expected:\n%s\ngot:\n%s\n' "$1" "$2" "$3"; exit 1; }
bin="$(mktemp)"
other="$(mktemp)"
trap 'rm -f "$bin" "$other"' EXIT
go build -o "$bin" .

expected="$(cat <<'OUT'
Coffee beans: 2 x 12.50 = 25.00
Milk: 3 x 1.05 = 3.15
Croissant: 4 x 1.95 = 7.80
Jam: 1 x 4.09 = 4.09
total: 40.04
OUT
)"
actual="$(go run .)"
[ "$actual" = "$expected" ] || fail cart.csv "$expected" "$actual"
actual="$("$bin" "$TASK_DIR/workspace/cart.csv")"
[ "$actual" = "$expected" ] || fail "the pristine cart.csv" "$expected" "$actual"

printf 'item,qty,unit_cents\nGum,1,5\nBike,1,100000\nStamps,10,7\n' >"$other"
expected="$(cat <<'OUT'
Gum: 1 x 0.05 = 0.05
Bike: 1 x 1000.00 = 1000.00
Stamps: 10 x 0.07 = 0.70
total: 1000.75
OUT
)"
actual="$("$bin" "$other")"
[ "$actual" = "$expected" ] || fail "a second cart" "$expected" "$actual"
