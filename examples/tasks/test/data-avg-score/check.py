"""Hidden check of data-avg-score: averages.csv has a `student,average` header
then each student's mean score (blank scores skipped, one decimal), by name,
computed from the task's pristine grades.csv."""

import csv
import os
import sys
from fractions import Fraction

scores = {}
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "grades.csv"), newline="") as f:
    for row in csv.DictReader(f):
        scores.setdefault(row["student"], [])
        if row["score"].strip():
            scores[row["student"]].append(int(row["score"]))
lines = ["student,average"]
for student in sorted(scores):
    mean = Fraction(sum(scores[student]), len(scores[student]))
    assert (mean * 10) % 1 != Fraction(1, 2), "rounding tie in the data"
    lines.append(f"{student},{float(mean):.1f}")
expected = "\n".join(lines) + "\n"

try:
    actual = open("averages.csv").read()
except FileNotFoundError:
    sys.exit("averages.csv is missing")
actual = actual.replace("\r\n", "\n")
if actual.rstrip("\n") + "\n" != expected:
    sys.exit(f"expected:\n{expected}got:\n{actual}")
