"""Hidden check of data-signups-per-month: signups_by_month.txt has a
`YYYY-MM count` line for every month from the first to the last signup of the
task's pristine signups.jsonl that is not a test account (email domain
internal.test, any case), zero months included, oldest first."""

import json
import os
import sys
from collections import Counter

counts = Counter()
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "signups.jsonl")) as f:
    for line in f:
        if not line.strip():
            continue
        row = json.loads(line)
        if row["email"].lower().endswith("@internal.test"):
            continue
        counts[row["created"][:7]] += 1
first, last = min(counts), max(counts)
year, month = map(int, first.split("-"))
expected = []
while f"{year:04d}-{month:02d}" <= last:
    key = f"{year:04d}-{month:02d}"
    expected.append(f"{key} {counts[key]}")
    year, month = (year + 1, 1) if month == 12 else (year, month + 1)

try:
    actual = [line.strip() for line in open("signups_by_month.txt") if line.strip()]
except FileNotFoundError:
    sys.exit("signups_by_month.txt is missing")
actual = [" ".join(line.split()) for line in actual]
if actual != expected:
    sys.exit("expected:\n" + "\n".join(expected) + "\ngot:\n" + "\n".join(actual))
