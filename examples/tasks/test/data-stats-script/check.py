"""Hidden check of data-stats-script: `python3 stats.py FILE` prints count,
min, max and mean (2 decimals) of the numbers in FILE, skipping blank lines
and # comments; tried on the task's pristine readings.txt and on another
file."""

import os
import subprocess
import sys
import tempfile
from fractions import Fraction


def expected(path):
    with open(path) as f:
        values = [Fraction(line.strip()) for line in f if line.strip() and not line.lstrip().startswith("#")]
    mean = sum(values) / len(values)
    assert (mean * 100) % 1 != Fraction(1, 2), "rounding tie"
    return (f"count: {len(values)}\nmin: {float(min(values)):.2f}\nmax: {float(max(values)):.2f}\n"
            f"mean: {float(mean):.2f}\n")


def run(path):
    result = subprocess.run([sys.executable, "stats.py", path], capture_output=True, text=True, timeout=10)
    if result.returncode != 0:
        sys.exit(f"python3 stats.py {path} failed:\n{result.stderr}")
    return result.stdout


if not os.path.exists("stats.py"):
    sys.exit("stats.py is missing")
pristine = os.path.join(os.environ["TASK_DIR"], "workspace", "readings.txt")
want, got = expected(pristine), run("readings.txt")
if got.rstrip("\n") + "\n" != want:
    sys.exit(f"python3 stats.py readings.txt\nexpected:\n{want}got:\n{got}")

with tempfile.TemporaryDirectory() as tmp:
    other = os.path.join(tmp, "other.txt")
    with open(other, "w") as f:
        f.write("# another station\n10\n\n12.5\n11\n-0.25\n")
    want, got = expected(other), run(other)
    if got.rstrip("\n") + "\n" != want:
        sys.exit(f"python3 stats.py other.txt (10, 12.5, 11, -0.25)\nexpected:\n{want}got:\n{got}")
