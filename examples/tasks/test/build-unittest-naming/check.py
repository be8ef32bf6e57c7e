"""Hidden check of build-unittest-naming: `python3 -m unittest discover -s
tests` runs all 7 tests and they pass, and the test files are the original
ones (renamed or not), not edited."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

run = subprocess.run(
    [sys.executable, "-m", "unittest", "discover", "-s", "tests"],
    capture_output=True,
    text=True,
)
print(run.stderr, file=sys.stderr)
if run.returncode != 0:
    sys.exit("the tests fail")
lines = run.stderr.splitlines()
if not any(line.startswith("Ran 7 tests") for line in lines) or "OK" not in lines:
    sys.exit("expected 'Ran 7 tests' and OK")


def digests(folder):
    return sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in Path(folder).glob("*.py"))


pristine = Path(os.environ["TASK_DIR"]) / "workspace" / "tests"
current = [hashlib.sha256(p.read_bytes()).hexdigest() for p in Path("tests").glob("test*.py")]
missing = [d for d in digests(pristine) if d not in current]
if missing:
    sys.exit("the test files were edited: tests/test*.py should hold the original tests unchanged")
