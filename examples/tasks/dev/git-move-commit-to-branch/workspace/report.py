"""Print a summary of an order log."""

import csv
import sys


def load(path):
    """The orders of the CSV file at `path`, amounts as floats."""
    with open(path, newline="") as f:
        return [
            {"date": row["date"], "customer": row["customer"], "amount": float(row["amount"])}
            for row in csv.DictReader(f)
        ]


def by_customer(orders):
    """Total amount per customer."""
    totals = {}
    for order in orders:
        totals[order["customer"]] = totals.get(order["customer"], 0.0) + order["amount"]
    return totals


def main(argv):
    orders = load(argv[1])
    for customer, total in sorted(by_customer(orders).items()):
        print(f"{customer:10} {total:10.2f}")


if __name__ == "__main__":
    main(sys.argv)
