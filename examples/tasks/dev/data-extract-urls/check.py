"""Hidden check of data-extract-urls: urls.txt lists the distinct http(s)
URLs of the task's pristine docs/*.md, without the markdown or sentence
punctuation around them, sorted."""

import glob
import os
import re
import sys

found = set()
for path in glob.glob(os.path.join(os.environ["TASK_DIR"], "workspace", "docs", "*.md")):
    with open(path) as f:
        for url in re.findall(r"https?://[^\s)>\]\"']+", f.read()):
            found.add(url.rstrip(".,;:"))
assert len(found) == 16, sorted(found)
expected = "".join(f"{url}\n" for url in sorted(found))

try:
    actual = open("urls.txt").read()
except FileNotFoundError:
    sys.exit("urls.txt is missing")
if actual.rstrip("\n") + "\n" != expected:
    sys.exit(f"expected:\n{expected}got:\n{actual}")
