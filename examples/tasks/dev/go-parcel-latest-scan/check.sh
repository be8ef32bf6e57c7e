# Hidden check of go-parcel-latest-scan: the program prints each parcel's
# latest scan (by time, not by file order) for the pristine scans.csv and for
# a second file of scans out of time order.
set -euo pipefail
fail() { printf 'for %s expected:\n%s\ngot:\n%s\n' "$1" "$2" "$3"; exit 1; }
bin="$(mktemp)"
other="$(mktemp)"
trap 'rm -f "$bin" "$other"' EXIT
go build -o "$bin" .

expected="$(cat <<'OUT'
PX-1042  2024-03-02 12:31  Delivered (Leeds)
PX-1043  2024-03-02 06:20  Manchester depot
PX-1077  2024-03-02 05:10  Oxford depot
OUT
)"
actual="$(go run . 2>&1)" || true
[ "$actual" = "$expected" ] || fail "scans.csv (go run .)" "$expected" "$actual"
actual="$("$bin" "$TASK_DIR/workspace/scans.csv" 2>&1)" || true
[ "$actual" = "$expected" ] || fail "the pristine scans.csv" "$expected" "$actual"

cat >"$other" <<'CSV'
parcel,time,place
ZB-7,2023-12-20 18:00,Rotterdam hub
AA-31,2023-12-21 09:15,"Lyon, quai 4"
ZB-7,2023-12-19 07:40,Antwerp depot
AA-31,2023-12-20 23:59,Paris Nord
ZB-7,2023-12-22 10:05,Delivered (Utrecht)
M-900,2023-12-21 14:30,Milan Linate
AA-31,2023-12-21 08:00,Dijon relay
CSV
expected="$(cat <<'OUT'
AA-31    2023-12-21 09:15  Lyon, quai 4
M-900    2023-12-21 14:30  Milan Linate
ZB-7     2023-12-22 10:05  Delivered (Utrecht)
OUT
)"
actual="$("$bin" "$other" 2>&1)" || true
[ "$actual" = "$expected" ] || fail "a second file of scans" "$expected" "$actual"
