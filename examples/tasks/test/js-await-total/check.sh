# Hidden check of js-await-total: count.js prints the right total for the
# pristine logs/ (with and without an argument) and for another directory.
set -euo pipefail
fail() { printf 'for %s expected %s, got:\n%s\n' "$1" "$2" "$3"; exit 1; }

actual="$(node count.js)"
[ "$actual" = "total: 9" ] || fail logs/ "total: 9" "$actual"
actual="$(node count.js "$TASK_DIR/workspace/logs")"
[ "$actual" = "total: 9" ] || fail "the pristine logs/" "total: 9" "$actual"

other="$(mktemp -d)"
trap 'rm -rf "$other"' EXIT
for i in $(seq 1 12); do seq 1 "$i" >"$other/part$i.log"; done
printf 'a\n\n  \nb\n' >"$other/blank.log"
printf '1\n2\n3\n' >"$other/skip.txt"
actual="$(node count.js "$other")"
[ "$actual" = "total: 80" ] || fail "another directory" "total: 80" "$actual"
