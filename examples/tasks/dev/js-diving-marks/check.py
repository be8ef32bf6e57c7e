"""Hidden check of js-diving-marks: judges.js prints each diver's final mark
(the five marks less the highest and the lowest, averaged, one decimal) and
the winner, for the task's pristine marks.csv and for another sheet made
here with tens, single-digit marks and halves."""

import os
import subprocess
import sys
import tempfile
from fractions import Fraction


def expected(path):
    with open(path) as f:
        rows = [line.strip() for line in f if line.strip()][1:]
    results = []
    for row in rows:
        diver, *fields = row.split(",")
        marks = sorted(Fraction(field) for field in fields)
        results.append((diver, sum(marks[1:-1]) / 3))
    out = "".join(f"{diver}: {float(mark):.1f}\n" for diver, mark in results)
    best = results[0]
    for result in results[1:]:
        if result[1] > best[1]:
            best = result
    return out + f"winner: {best[0]} ({float(best[1]):.1f})\n"


def compare(path, what):
    want = expected(path)
    run = subprocess.run(["node", "judges.js", path], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"judges.js failed on {what}:\n{run.stderr}")
    if run.stdout != want:
        sys.exit(f"for {what} expected:\n{want}got:\n{run.stdout}")


compare(os.path.join(os.environ["TASK_DIR"], "workspace", "marks.csv"),
        "the task's marks.csv")

sheet = """diver,judge1,judge2,judge3,judge4,judge5
Ana Lima,10,10,9.5,10,9
Ben Okoro,2,10,3.5,4,3
Chloe Martin,9.5,10,10,10,10
Dara Singh,0,1.5,0.5,1,2
Emil Sorensen,6,9,7.5,10,8.5

"""
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "sheet.csv")
    with open(path, "w") as f:
        f.write(sheet)
    compare(path, "another sheet (with tens and single-digit marks)")
