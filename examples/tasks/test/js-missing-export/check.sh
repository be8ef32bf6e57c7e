# Hidden check of js-missing-export: invoice.js prints the whole invoice, for
# the pristine invoice.json and for a second invoice.
set -euo pipefail
fail() { printf 'for %s expected:\n%s\ngot:\n%s\n' "$1" "$2" "$3"; exit 1; }

expected="$(cat <<'OUT'
Invoice 2024-0042 - 2024-03-05
Customer: Lindqvist Bakery
Website hosting (year)  1   240.00 EUR
Support hours           12  1,026.00 EUR
Domain renewal          2   25.98 EUR
Total                       1,291.98 EUR
OUT
)"
actual="$(node invoice.js "$TASK_DIR/workspace/invoice.json")"
[ "$actual" = "$expected" ] || fail invoice.json "$expected" "$actual"

other="$(mktemp)"
trap 'rm -f "$other"' EXIT
cat >"$other" <<'JSON'
{"number": "2024-0077", "date": "2024-11-30T23:59:00Z", "customer": "Ode",
 "items": [{"description": "Server", "quantity": 1, "unitCents": 1234567},
           {"description": "Refund", "quantity": 1, "unitCents": -505}]}
JSON
expected="$(cat <<'OUT'
Invoice 2024-0077 - 2024-11-30
Customer: Ode
Server                  1   12,345.67 EUR
Refund                  1   -5.05 EUR
Total                       12,340.62 EUR
OUT
)"
actual="$(node invoice.js "$other")"
[ "$actual" = "$expected" ] || fail "a second invoice" "$expected" "$actual"
