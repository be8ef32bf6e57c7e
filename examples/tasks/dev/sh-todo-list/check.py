"""Hidden check of sh-todo-list: TODO.md lists every TODO comment under src/
(found in the task's pristine copy) as `path:line: text`, by path then line."""

import os
import re
import sys

src_root = os.path.join(os.environ["TASK_DIR"], "workspace")
found = []
for dirpath, _, files in os.walk(os.path.join(src_root, "src")):
    for name in files:
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, src_root)
        with open(path) as f:
            for number, line in enumerate(f, 1):
                m = re.search(r"#\s*TODO:\s*(.*?)\s*$", line)
                if m:
                    found.append((rel, number, m.group(1)))
expected = "".join(f"{p}:{n}: {t}\n" for p, n, t in sorted(found))
assert len(found) == 4, found

try:
    with open("TODO.md") as f:
        actual = f.read()
except FileNotFoundError:
    sys.exit("TODO.md is missing")
if actual.rstrip("\n") + "\n" != expected:
    sys.exit(f"expected:\n{expected}got:\n{actual}")
