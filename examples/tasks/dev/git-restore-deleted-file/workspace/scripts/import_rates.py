"""One-off import of the carrier's old rate table (done in 2023)."""

import csv
import json
import sys

rates = {}
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f):
        rates[row["zone"]] = {"base": float(row["base"]), "per_kg": float(row["per_kg"])}
json.dump(rates, sys.stdout, indent=2)
