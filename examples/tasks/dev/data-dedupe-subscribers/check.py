"""Hidden check of data-dedupe-subscribers: subscribers_clean.csv holds the
header and, in file order, the first row of each trimmed, lowercased email
of the task's pristine subscribers.csv, dropping emails without an @."""

import csv
import os
import sys

with open(os.path.join(os.environ["TASK_DIR"], "workspace", "subscribers.csv"), newline="") as f:
    rows = list(csv.reader(f))
header, body = rows[0], rows[1:]
expected = [header]
seen = set()
for row in body:
    if not row:
        continue
    email = row[0].strip().lower()
    if "@" not in email or email in seen:
        continue
    seen.add(email)
    expected.append([email] + row[1:])

try:
    with open("subscribers_clean.csv", newline="") as f:
        actual = [row for row in csv.reader(f) if row]
except FileNotFoundError:
    sys.exit("subscribers_clean.csv is missing")


def show(rows):
    return "".join(",".join(row) + "\n" for row in rows)


if actual != expected:
    sys.exit(f"expected these rows:\n{show(expected)}got:\n{show(actual)}")
