"""Hidden check of data-imports-list: imports.txt lists, one per line, once
each, in plain ASCII order, the top-level names of the modules imported by
the pristine *.py files under the task's src/ (found with ast, so comments
and strings don't count; nested imports do), without relative imports and
the project's own package tracker."""

import ast
import os
import sys

root = os.path.join(os.environ["TASK_DIR"], "workspace", "src")
names = set()
for folder, _, files in os.walk(root):
    for name in files:
        if not name.endswith(".py"):
            continue
        with open(os.path.join(folder, name)) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names.add(node.module.split(".")[0])
names.discard("tracker")
expected = sorted(names)

try:
    with open("imports.txt") as f:
        actual = [line.strip() for line in f if line.strip()]
except FileNotFoundError:
    sys.exit("imports.txt is missing")
if actual != expected:
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    sys.exit(f"expected:\n{chr(10).join(expected)}\ngot:\n{chr(10).join(actual)}\n"
             f"(missing: {missing}, not expected: {extra})")
