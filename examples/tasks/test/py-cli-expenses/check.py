"""Hidden check of py-cli-expenses: `python3 expenses.py FILE` prints the sum
per category, sorted by category, as `category: 12.34`, for the task's
expenses.csv and for another file."""

import os
import subprocess
import sys
from decimal import Decimal

TASK_DIR = os.environ["TASK_DIR"]


def expected(path):
    totals = {}
    with open(path) as f:
        next(f)
        for line in f:
            _, category, amount = line.strip().split(",")
            totals[category] = totals.get(category, Decimal(0)) + Decimal(amount)
    return "".join(f"{c}: {totals[c]:.2f}\n" for c in sorted(totals))


for path in (os.path.join(TASK_DIR, "workspace", "expenses.csv"), os.path.join(TASK_DIR, "other.csv")):
    run = subprocess.run(
        [sys.executable, "expenses.py", path], capture_output=True, text=True, timeout=10
    )
    want = expected(path)
    if run.returncode != 0 or run.stdout != want:
        sys.exit(
            f"check failed for {os.path.basename(path)}:\nexpected:\n{want}got:\n{run.stdout}{run.stderr}"
        )
print("ok")
