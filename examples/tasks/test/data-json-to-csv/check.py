"""Hidden check of data-json-to-csv: users.csv has the header
id,name,email,city,country and one row per user of the task's pristine
users.json, in order (city and country from the address)."""

import csv
import json
import os
import sys

with open(os.path.join(os.environ["TASK_DIR"], "workspace", "users.json"), encoding="utf-8") as f:
    users = json.load(f)
expected = [["id", "name", "email", "city", "country"]] + [
    [str(u["id"]), u["name"], u["email"], u["address"]["city"], u["address"]["country"]] for u in users
]

try:
    with open("users.csv", newline="", encoding="utf-8") as f:
        actual = list(csv.reader(f))
except FileNotFoundError:
    sys.exit("users.csv is missing")
except UnicodeDecodeError as e:
    sys.exit(f"users.csv is not UTF-8: {e}")
if actual != expected:
    sys.exit(f"expected rows:\n{expected}\ngot:\n{actual}")
