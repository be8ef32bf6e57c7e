"""Hidden check of refactor-add-kwarg: format_amount has a `symbol` keyword
argument defaulting to "$", and the tests pass."""

import inspect
import re
import subprocess
import sys

run = subprocess.run(
    [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_moneyfmt.py"],
    capture_output=True,
    text=True,
)
print(run.stdout + run.stderr, file=sys.stderr)
if run.returncode != 0 or not re.search(r"^3 passed in ", run.stdout, re.M):
    sys.exit("check failed: python3 -m pytest -q does not pass")

sys.path.insert(0, ".")
from moneyfmt import format_amount  # noqa: E402

params = inspect.signature(format_amount).parameters
if "symbol" not in params or params["symbol"].default != "$":
    sys.exit('check failed: format_amount has no `symbol` argument defaulting to "$"')
if format_amount(250) != "$2.50" or format_amount(-1, symbol="kr ") != "-kr 0.01":
    sys.exit("check failed: format_amount gives wrong results")
print("ok")
