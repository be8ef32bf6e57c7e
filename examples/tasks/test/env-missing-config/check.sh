# Hidden check of env-missing-config: config.ini exists with the example's
# settings except currency = USD, so the report prints in USD.
set -euo pipefail
test -f config.ini || { echo "no config.ini"; exit 1; }
expected='Weekly sales
north: 430.40 USD
south: 185.35 USD
total: 615.75 USD'
actual="$(python3 report.py)"
if [ "$actual" != "$expected" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
python3 - <<'PY'
import configparser, sys
config = configparser.ConfigParser()
config.read("config.ini")
got = dict(config["report"])
want = {"title": "Weekly sales", "input": "data/sales.csv", "currency": "USD", "decimals": "2"}
if got != want:
    sys.exit(f"config.ini [report] is {got}, expected {want}")
PY
