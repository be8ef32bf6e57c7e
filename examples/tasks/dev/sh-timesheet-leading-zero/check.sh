# Hidden check of sh-timesheet-leading-zero: hours.sh adds up the shifts of
# the pristine timesheet.txt and of a second timesheet whose times have
# leading zeros in both hours and minutes, without errors.
set -euo pipefail
fail() { printf 'for %s expected:\n%s\ngot:\n%s\n' "$1" "$2" "$3"; exit 1; }
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT

expect="$(printf 'ines 29h45\nmarek 23h10\ntomas 16h00')"
actual="$(bash hours.sh 2>"$data/err")" || true
[ "$actual" = "$expect" ] && [ ! -s "$data/err" ] || fail timesheet.txt "$expect" "$actual"$'\n'"$(cat "$data/err")"
cp "$TASK_DIR/workspace/timesheet.txt" "$data/pristine.txt"
actual="$(bash hours.sh "$data/pristine.txt" 2>"$data/err")" || true
[ "$actual" = "$expect" ] && [ ! -s "$data/err" ] || fail "the pristine timesheet.txt" "$expect" "$actual"$'\n'"$(cat "$data/err")"

cat >"$data/night.txt" <<'TXT'
# night shift at the bakery
olga 2024-11-02 00:08 08:09
pavel 2024-11-02 03:00 09:59
olga 2024-11-03 01:09 09:08
# pavel covered the afternoon
pavel 2024-11-03 09:08 19:00
ruth 2024-11-03 06:30 07:05
TXT
# olga 481 + 479 = 960 min, pavel 419 + 592 = 1011 min, ruth 35 min
expect="$(printf 'olga 16h00\npavel 16h51\nruth 0h35')"
actual="$(bash hours.sh "$data/night.txt" 2>"$data/err")" || true
[ "$actual" = "$expect" ] && [ ! -s "$data/err" ] || fail "a second timesheet" "$expect" "$actual"$'\n'"$(cat "$data/err")"
