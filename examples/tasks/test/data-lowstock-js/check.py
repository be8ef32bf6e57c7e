"""Hidden check of data-lowstock-js: `node lowstock.js` prints
`SKU name: qty left (reorder at N)` for each item of inventory.json whose qty
is strictly below reorder_at, in file order; tried on the task's pristine
inventory.json and on another one."""

import json
import os
import shutil
import subprocess
import sys
import tempfile


def expected(path):
    with open(path) as f:
        items = json.load(f)["items"]
    return "".join(f"{i['sku']} {i['name']}: {i['qty']} left (reorder at {i['reorder_at']})\n"
                   for i in items if i["qty"] < i["reorder_at"])


def run(cwd):
    result = subprocess.run(["node", "lowstock.js"], cwd=cwd, capture_output=True, text=True, timeout=10)
    if result.returncode != 0:
        sys.exit(f"node lowstock.js failed:\n{result.stderr}")
    return result.stdout


if not os.path.exists("lowstock.js"):
    sys.exit("lowstock.js is missing")
want, got = expected(os.path.join(os.environ["TASK_DIR"], "workspace", "inventory.json")), run(".")
if got.rstrip("\n") + "\n" != want:
    sys.exit(f"expected:\n{want}got:\n{got}")

with tempfile.TemporaryDirectory() as tmp:
    shutil.copy("lowstock.js", tmp)
    other = {"warehouse": "south", "items": [
        {"sku": "P-1", "name": "Pipe clamp 22 mm", "qty": 9, "reorder_at": 10},
        {"sku": "P-2", "name": "Pipe clamp 28 mm", "qty": 40, "reorder_at": 10},
        {"sku": "T-7", "name": "PTFE tape", "qty": 2, "reorder_at": 25},
    ]}
    with open(os.path.join(tmp, "inventory.json"), "w") as f:
        json.dump(other, f)
    want, got = expected(os.path.join(tmp, "inventory.json")), run(tmp)
    if got.rstrip("\n") + "\n" != want:
        sys.exit(f"with another inventory.json ({other['items']})\nexpected:\n{want}got:\n{got}")
