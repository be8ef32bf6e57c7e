"""Hidden check of data-failed-tests: failed.txt has the ids of the tests that
FAILED (not the ERRORs) in the task's pristine ci.log, in log order."""

import os
import re
import sys

ids = []
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "ci.log")) as f:
    for line in f:
        m = re.match(r"FAILED (\S+)", line)
        if m:
            ids.append(m.group(1))
assert len(ids) == 6, ids
expected = "".join(f"{test_id}\n" for test_id in ids)

try:
    actual = open("failed.txt").read()
except FileNotFoundError:
    sys.exit("failed.txt is missing")
if actual.rstrip("\n") + "\n" != expected:
    sys.exit(f"expected:\n{expected}got:\n{actual}")
