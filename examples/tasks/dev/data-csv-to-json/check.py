"""Hidden check of data-csv-to-json: products.json is an array with one object
per row of the task's pristine products.csv, in order, with sku and name as
strings, price a number, stock an integer and active a boolean."""

import csv
import json
import os
import sys

expected = []
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "products.csv"), newline="") as f:
    for row in csv.DictReader(f):
        expected.append({
            "sku": row["sku"],
            "name": row["name"],
            "price": float(row["price"]),
            "stock": int(row["stock"]),
            "active": {"yes": True, "no": False}[row["active"]],
        })

try:
    with open("products.json") as f:
        actual = json.load(f)
except FileNotFoundError:
    sys.exit("products.json is missing")
except json.JSONDecodeError as e:
    sys.exit(f"products.json is not valid JSON: {e}")
if actual != expected:
    sys.exit(f"expected:\n{json.dumps(expected, indent=2)}\ngot:\n{json.dumps(actual, indent=2)}")
for item in actual:
    kinds = {key: type(value) for key, value in item.items()}
    if not (kinds["sku"] is str and kinds["name"] is str and kinds["price"] in (int, float)
            and kinds["stock"] is int and kinds["active"] is bool):
        sys.exit(f"wrong types in {item!r}")
