"""Hidden check of data-restock-list: reorder.csv has the header
sku,name,shortfall and the non-discontinued items of the task's pristine
inventory.json whose stock (0 when missing) is below reorder_at, largest
shortfall first, then by sku."""

import csv
import json
import os
import sys

with open(os.path.join(os.environ["TASK_DIR"], "workspace", "inventory.json")) as f:
    items = json.load(f)["items"]
rows = []
for item in items:
    if item.get("discontinued"):
        continue
    shortfall = item["reorder_at"] - item.get("stock", 0)
    if shortfall > 0:
        rows.append([item["sku"], item["name"], shortfall])
rows.sort(key=lambda row: (-row[2], row[0]))
expected = [["sku", "name", "shortfall"]] + [[sku, name, str(n)] for sku, name, n in rows]

try:
    with open("reorder.csv", newline="") as f:
        actual = [row for row in csv.reader(f) if row]
except FileNotFoundError:
    sys.exit("reorder.csv is missing")


def show(rows):
    return "".join(" | ".join(row) + "\n" for row in rows)


if actual != expected:
    sys.exit(f"expected these rows:\n{show(expected)}got:\n{show(actual)}")
