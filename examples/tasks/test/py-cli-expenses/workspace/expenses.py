"""Sum expenses per category: `python3 expenses.py FILE.csv`.

The CSV file has a `date,category,amount` header line. The program prints
one `category: total` line per category, sorted by category name, with the
total to two decimal places.
"""

import csv
import sys


def totals_by_category(rows):
    totals = {}
    for row in rows:
        category = row["category"]
        totals[category] = float(row["amount"])
    return totals


def main(argv):
    if len(argv) != 2:
        print("usage: python3 expenses.py FILE.csv", file=sys.stderr)
        return 2
    with open(argv[1], newline="") as f:
        totals = totals_by_category(csv.DictReader(f))
    for category in sorted(totals):
        print(f"{category}: {totals[category]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
