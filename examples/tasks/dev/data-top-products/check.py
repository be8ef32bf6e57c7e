"""Hidden check of data-top-products: top5.txt ranks the 5 products with the
most units sold in the task's pristine orders.jsonl as `1. Name (units)`."""

import json
import os
import sys
from collections import Counter

units = Counter()
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "orders.jsonl")) as f:
    for line in f:
        if line.strip():
            order = json.loads(line)
            units[order["product"]] += order["qty"]
ranked = units.most_common()
assert ranked[4][1] > ranked[5][1] and len({n for _, n in ranked[:5]}) == 5, "ties"
expected = "".join(f"{i}. {name} ({n})\n" for i, (name, n) in enumerate(ranked[:5], 1))

try:
    actual = open("top5.txt").read()
except FileNotFoundError:
    sys.exit("top5.txt is missing")
if actual.rstrip("\n") + "\n" != expected:
    sys.exit(f"expected:\n{expected}got:\n{actual}")
