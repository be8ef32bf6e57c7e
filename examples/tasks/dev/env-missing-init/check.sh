# Hidden check of env-missing-init: `from inventory import ...` works, so
# main.py prints its summary and the tests pass.
set -euo pipefail
expected='items: 5
value: 174.30
low stock: B200, D400'
actual="$(python3 main.py)"
if [ "$actual" != "$expected" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
python3 -m unittest test_inventory
