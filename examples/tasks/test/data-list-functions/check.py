"""Hidden check of data-list-functions: functions.txt names the module-level
functions (def and async def) of the task's pristine textkit.py, in order."""

import ast
import os
import sys

with open(os.path.join(os.environ["TASK_DIR"], "workspace", "textkit.py")) as f:
    tree = ast.parse(f.read())
names = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
assert len(names) == 7, names
expected = "".join(f"{name}\n" for name in names)

try:
    actual = open("functions.txt").read()
except FileNotFoundError:
    sys.exit("functions.txt is missing")
if actual.rstrip("\n") + "\n" != expected:
    sys.exit(f"expected:\n{expected}got:\n{actual}")
