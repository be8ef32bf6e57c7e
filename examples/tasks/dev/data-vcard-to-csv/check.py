"""Hidden check of data-vcard-to-csv: contacts.csv has the header
name,email,phone and one row per card of the task's pristine contacts.vcf,
in file order: FN, the first EMAIL and the first TEL (empty when missing),
with folded lines unfolded and property names matched in any case."""

import csv
import os
import sys

with open(os.path.join(os.environ["TASK_DIR"], "workspace", "contacts.vcf"), encoding="utf-8") as f:
    raw = f.read().splitlines()
lines = []
for line in raw:
    if line[:1] in (" ", "\t") and lines:
        lines[-1] += line[1:]
    else:
        lines.append(line)
expected = [["name", "email", "phone"]]
card = None
for line in lines:
    if ":" not in line:
        continue
    prop, value = line.split(":", 1)
    name = prop.split(";", 1)[0].upper()
    if name == "BEGIN":
        card = {}
    elif name == "END":
        expected.append([card.get("FN", ""), card.get("EMAIL", ""), card.get("TEL", "")])
    elif name in ("FN", "EMAIL", "TEL"):
        card.setdefault(name, value.strip())

try:
    with open("contacts.csv", newline="", encoding="utf-8") as f:
        actual = [row for row in csv.reader(f) if row]
except FileNotFoundError:
    sys.exit("contacts.csv is missing")


def show(rows):
    return "".join(" | ".join(row) + "\n" for row in rows)


if actual != expected:
    sys.exit(f"expected these rows:\n{show(expected)}got:\n{show(actual)}")
