"""Hidden check of data-traffic-per-client: traffic.csv has the header
ip,bytes and the summed response sizes of the 2xx requests of each client of
the task's pristine access.log (`-` is 0, incomplete lines skipped), biggest
first, ties by IP as text."""

import csv
import os
import re
import sys
from collections import Counter

LINE = re.compile(r'^(\S+) \S+ \S+ \[[^\]]+\] "[^"]*" (\d{3}) (\d+|-) "[^"]*" "[^"]*"$')
totals = Counter()
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "access.log")) as f:
    for line in f:
        m = LINE.match(line.rstrip("\n"))
        if not m or not m.group(2).startswith("2"):
            continue
        totals[m.group(1)] += 0 if m.group(3) == "-" else int(m.group(3))
expected = [["ip", "bytes"]] + [
    [ip, str(n)] for ip, n in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
]

try:
    with open("traffic.csv", newline="") as f:
        actual = [[cell.strip() for cell in row] for row in csv.reader(f) if row]
except FileNotFoundError:
    sys.exit("traffic.csv is missing")


def show(rows):
    return "".join(",".join(row) + "\n" for row in rows)


if actual != expected:
    sys.exit(f"expected:\n{show(expected)}got:\n{show(actual)}")
