"""Write out/summary.csv: the revenue of each customer from data/orders.csv."""

import csv
from collections import defaultdict

SOURCE = "data/orders.csv"
TARGET = "out/summary.csv"


def summarize(rows):
    revenue = defaultdict(float)
    for row in rows:
        revenue[row["customer"]] += int(row["quantity"]) * float(row["unit_price"])
    return sorted(revenue.items())


def main():
    with open(SOURCE, newline="") as f:
        rows = list(csv.DictReader(f))
    with open(TARGET, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["customer", "revenue"])
        for customer, amount in summarize(rows):
            writer.writerow([customer, f"{amount:.2f}"])
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
