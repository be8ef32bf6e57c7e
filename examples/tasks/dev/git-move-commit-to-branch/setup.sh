# Setup of git-move-commit-to-branch: on main, a good commit (monthly totals)
# and then "Add CSV export", which was meant for a branch of its own.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
git branch -M main
python3 - <<'PY'
path = "report.py"
src = open(path).read()
src = src.replace(
    '''def main(argv):''',
    '''def by_month(orders):
    """Total amount per month (YYYY-MM)."""
    totals = {}
    for order in orders:
        month = order["date"][:7]
        totals[month] = totals.get(month, 0.0) + order["amount"]
    return totals


def main(argv):''',
)
src = src.replace(
    '''        print(f"{customer:10} {total:10.2f}")
''',
    '''        print(f"{customer:10} {total:10.2f}")
    print()
    for month, total in sorted(by_month(orders).items()):
        print(f"{month:10} {total:10.2f}")
''',
)
open(path, "w").write(src)
PY
git commit -q -am 'Add monthly totals to the report'
cat >export_csv.py <<'PY'
"""Write the per-customer totals of an order log as CSV."""

import csv
import sys

from report import by_customer, load


def export(orders, out):
    writer = csv.writer(out)
    writer.writerow(["customer", "total"])
    for customer, total in sorted(by_customer(orders).items()):
        writer.writerow([customer, f"{total:.2f}"])


if __name__ == "__main__":
    export(load(sys.argv[1]), sys.stdout)
PY
cat >>README.md <<'MD'

Per-customer totals as CSV:

    python3 export_csv.py orders.csv > totals.csv
MD
git add export_csv.py README.md
git commit -q -m 'Add CSV export'
