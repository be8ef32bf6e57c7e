# Setup of git-uncommit-keep-staged: a good commit ("Show the order date on
# invoices"), then the commit made too early ("Add VAT to invoices": a change
# to invoice.py and a new file vat.py), then an unstaged edit of README.md.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
python3 - <<'PY'
path = "invoice.py"
src = open(path).read()
src = src.replace('''    lines = [f"Invoice {order['number']} for {order['customer']}", ""]''',
                  '''    lines = [f"Invoice {order['number']} for {order['customer']}",
             f"Date: {order.get('date', 'unknown')}", ""]''')
open(path, "w").write(src)
PY
git commit -q -am 'Show the order date on invoices'
cat >vat.py <<'PY'
"""VAT rates by product category."""

RATES = {"food": 0.07, "standard": 0.19}


def vat(amount, category="standard"):
    return round(amount * RATES[category], 2)
PY
python3 - <<'PY'
path = "invoice.py"
src = open(path).read()
src = src.replace('''import json
import sys
''', '''import json
import sys

from vat import vat
''')
src = src.replace('''    lines += ["", f"{'Total':<26} {total:>8.2f}"]''',
                  '''    tax = vat(total)
    lines += ["", f"{'VAT':<26} {tax:>8.2f}", f"{'Total':<26} {total + tax:>8.2f}"]''')
open(path, "w").write(src)
PY
git add vat.py invoice.py
git commit -q -m 'Add VAT to invoices'
cat >>README.md <<'MD'

Amounts include VAT (see vat.py for the rates).
MD
