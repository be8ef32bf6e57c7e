"""Hidden check of data-late-deliveries: drivers.csv has the header
driver,delivered,late,late_percent and a row per driver, computed from the
task's pristine deliveries.jsonl: blank lines skipped, each delivery id
counted once, deliveries without a delivered_at (missing or null) left out,
late when delivered_at is after due_by, late_percent with one decimal;
highest late_percent first, then by driver."""

import csv
import json
import os
import sys
from datetime import datetime

seen = set()
stats = {}
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "deliveries.jsonl")) as f:
    for line in f:
        if not line.strip():
            continue
        d = json.loads(line)
        if d["id"] in seen or not d.get("delivered_at"):
            continue
        seen.add(d["id"])
        delivered = datetime.fromisoformat(d["delivered_at"].replace("Z", "+00:00"))
        due = datetime.fromisoformat(d["due_by"].replace("Z", "+00:00"))
        s = stats.setdefault(d["driver"], [0, 0])
        s[0] += 1
        s[1] += delivered > due
rows = sorted(
    ((driver, n, late, late * 100 / n) for driver, (n, late) in stats.items()),
    key=lambda row: (-round(row[3], 1), row[0]),
)
expected = [["driver", "delivered", "late", "late_percent"]] + [
    [driver, str(n), str(late), f"{pct:.1f}"] for driver, n, late, pct in rows
]

try:
    with open("drivers.csv", newline="") as f:
        actual = [row for row in csv.reader(f) if row]
except FileNotFoundError:
    sys.exit("drivers.csv is missing")


def show(rows):
    return "".join(",".join(row) + "\n" for row in rows)


if actual != expected:
    sys.exit(f"expected drivers.csv:\n{show(expected)}got:\n{show(actual)}")
