# Hidden check of go-expenses-quoted-payee: the report of the task's
# expenses.csv and of another file with quoted payees (an escaped quote
# among them) counts every row. Whitespace runs are compared as one space.
set -euo pipefail
bin="$(mktemp)"
other="$(mktemp)"
trap 'rm -f "$bin" "$other"' EXIT
go build -o "$bin" .
norm() { sed -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//'; }
compare() {
    local actual
    actual="$("$bin" "$1" | norm)"
    if [ "$actual" != "$2" ]; then
        printf 'for %s expected:\n%s\ngot:\n%s\n' "$3" "$2" "$actual"
        exit 1
    fi
}
compare "$TASK_DIR/workspace/expenses.csv" 'Miller, Hahn & Co 316.55
Dr. Weiss, Zahnarztpraxis 180.00
Stadtwerke 100.00
Telekom 39.95
Buchhandlung am Markt 27.30
Bäckerei Sonnenschein 22.00
TOTAL 685.80' "the task's expenses.csv"
actual="$(go run . | norm)"
[ "$(printf '%s\n' "$actual" | tail -n 1)" = "TOTAL 685.80" ] || { printf '`go run .` printed:\n%s\n' "$actual"; exit 1; }
cat >"$other" <<'CSV'
date,payee,amount
2024-05-01,"Bob ""The Builder"" Ltd",250.00
2024-05-02,Corner Shop,3.10
2024-05-03,"Smith, Jones, and Partners",99.90
2024-05-04,Corner Shop,6.90
2024-05-05,"Bob ""The Builder"" Ltd",50.00
CSV
compare "$other" 'Bob "The Builder" Ltd 300.00
Smith, Jones, and Partners 99.90
Corner Shop 10.00
TOTAL 409.90' "another expenses file"
