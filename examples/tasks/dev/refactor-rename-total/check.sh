# Hidden check of refactor-rename-total: the tests pass, report.py still runs,
# and the old name calc_total is gone from every Python file.
set -euo pipefail
out="$(python3 -m unittest test_orders 2>&1)" || { printf '%s\n' "$out"; exit 1; }
printf '%s\n' "$out"
grep -qx 'Ran 4 tests\? in .*' <<<"$out"
test "$(python3 report.py)" = "3 orders, 26.00 in sales"
if grep -rn --include='*.py' 'calc_total' .; then
    echo "calc_total is still used or defined"
    exit 1
fi
