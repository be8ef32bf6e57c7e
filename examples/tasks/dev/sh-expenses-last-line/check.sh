# Hidden check of sh-expenses-last-line: total.sh counts every expense of the
# pristine expenses.txt (no final newline) and of files that do end in one.
set -euo pipefail
fail() { printf 'for %s expected: %s\ngot: %s\n' "$1" "$2" "$3"; exit 1; }
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT

cp "$TASK_DIR/workspace/expenses.txt" "$data/expenses.txt"
actual="$(bash total.sh "$data/expenses.txt")"
[ "$actual" = "5 expenses, total 788" ] || fail expenses.txt "5 expenses, total 788" "$actual"
actual="$(bash total.sh)"
[ "$actual" = "5 expenses, total 788" ] || fail "expenses.txt (no argument)" "5 expenses, total 788" "$actual"

printf '2024-06-01 rent 650\n# paid late\n2024-06-03 books 31\n' >"$data/june.txt"
actual="$(bash total.sh "$data/june.txt")"
[ "$actual" = "2 expenses, total 681" ] || fail "a file ending in a newline" "2 expenses, total 681" "$actual"

printf '2024-07-01 rent 650\n\n2024-07-02 cinema 12' >"$data/july.txt"
actual="$(bash total.sh "$data/july.txt")"
[ "$actual" = "2 expenses, total 662" ] || fail "a file with a blank line" "2 expenses, total 662" "$actual"
