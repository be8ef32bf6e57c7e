"""Hidden check of data-package-list: packages.txt lists the normalised
(PEP 503) project names required by the task's pristine requirements/*.txt,
each once, in ASCII order."""

import glob
import os
import re
import sys

names = set()
for path in glob.glob(os.path.join(os.environ["TASK_DIR"], "workspace", "requirements", "*.txt")):
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line or line.startswith("-"):
                continue
            name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line).group(0)
            names.add(re.sub(r"[-_.]+", "-", name).lower())
expected = "".join(f"{name}\n" for name in sorted(names))

try:
    actual = open("packages.txt").read()
except FileNotFoundError:
    sys.exit("packages.txt is missing")
if actual.replace("\r\n", "\n").rstrip("\n") + "\n" != expected:
    sys.exit(f"expected:\n{expected}got:\n{actual}")
