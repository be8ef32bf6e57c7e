"""Hidden check of data-errors-per-hour: errors_by_hour.txt counts the ERROR
lines of the task's pristine app.log per hour, as `YYYY-MM-DD HH:00 count`,
in time order, leaving out hours without errors."""

import os
import sys
from collections import Counter

counts = Counter()
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "app.log")) as f:
    for line in f:
        fields = line.split()
        if len(fields) >= 3 and fields[2] == "ERROR":
            counts[f"{fields[0]} {fields[1][:2]}:00"] += 1
expected = "".join(f"{hour} {n}\n" for hour, n in sorted(counts.items()))

try:
    actual = open("errors_by_hour.txt").read()
except FileNotFoundError:
    sys.exit("errors_by_hour.txt is missing")
if actual.rstrip("\n") + "\n" != expected:
    sys.exit(f"expected:\n{expected}got:\n{actual}")
