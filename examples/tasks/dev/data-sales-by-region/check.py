"""Hidden check of data-sales-by-region: region_totals.txt has `Region: total`
per region (summed from the task's pristine sales.csv), highest total first."""

import csv
import os
import sys
from decimal import Decimal

src = os.path.join(os.environ["TASK_DIR"], "workspace", "sales.csv")
totals = {}
with open(src, newline="") as f:
    for row in csv.DictReader(f):
        totals[row["region"]] = totals.get(row["region"], Decimal(0)) + Decimal(row["amount"])
assert len(set(totals.values())) == len(totals), "tied totals"
ranked = sorted(totals.items(), key=lambda kv: kv[1], reverse=True)
expected = "".join(f"{region}: {total:.2f}\n" for region, total in ranked)

try:
    actual = open("region_totals.txt").read()
except FileNotFoundError:
    sys.exit("region_totals.txt is missing")
if actual.rstrip("\n") + "\n" != expected:
    sys.exit(f"expected:\n{expected}got:\n{actual}")
