"""Hidden check of data-host-inventory: inventory.csv has the header
`hostname,os,cpus,memory_gb` and one row per non-retired machine of the
task's pristine hosts/*.ini (from the [host] section, memory in whole GB),
sorted by hostname."""

import configparser
import csv
import glob
import os
import sys

expected = []
for path in glob.glob(os.path.join(os.environ["TASK_DIR"], "workspace", "hosts", "*.ini")):
    ini = configparser.ConfigParser()
    ini.read(path)
    host = ini["host"]
    if host["status"].strip().lower() == "retired":
        continue
    memory = host["memory"].strip().upper()
    gb = int(memory[:-1]) // (1024 if memory.endswith("M") else 1)
    expected.append([host["name"], host["os"], host["cpus"], str(gb)])
expected.sort()
assert len({row[0] for row in expected}) == len(expected), "duplicate hostnames"
expected.insert(0, ["hostname", "os", "cpus", "memory_gb"])

try:
    with open("inventory.csv", newline="") as f:
        actual = [[cell.strip() for cell in row] for row in csv.reader(f) if row]
except FileNotFoundError:
    sys.exit("inventory.csv is missing")
if actual != expected:
    show = lambda rows: "".join(",".join(row) + "\n" for row in rows)
    sys.exit(f"expected:\n{show(expected)}got:\n{show(actual)}")
