# Hidden check of env-missing-output-dir: python3 export.py runs and writes
# out/summary.csv with each customer's revenue.
set -euo pipefail
rm -f out/summary.csv
python3 export.py
expected='customer,revenue
acme,49.98
globex,27.49
initech,31.00'
actual="$(tr -d '\r' <out/summary.csv)"
if [ "$actual" != "$expected" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
