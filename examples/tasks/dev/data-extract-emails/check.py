"""Hidden check of data-extract-emails: emails.txt lists the distinct e-mail
addresses of the task's pristine tickets/*.txt, lowercased and sorted."""

import glob
import os
import re
import sys

found = set()
for path in glob.glob(os.path.join(os.environ["TASK_DIR"], "workspace", "tickets", "*.txt")):
    with open(path) as f:
        found.update(m.lower() for m in re.findall(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}", f.read()))
assert len(found) == 11, sorted(found)
expected = "".join(f"{address}\n" for address in sorted(found))

try:
    actual = open("emails.txt").read()
except FileNotFoundError:
    sys.exit("emails.txt is missing")
if actual.rstrip("\n") + "\n" != expected:
    sys.exit(f"expected:\n{expected}got:\n{actual}")
