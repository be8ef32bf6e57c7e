python3 - <<'PY'
import csv
from decimal import Decimal

totals = {}
with open("sales.csv", newline="") as f:
    for row in csv.DictReader(f):
        totals[row["region"]] = totals.get(row["region"], Decimal(0)) + Decimal(row["amount"])
with open("region_totals.txt", "w") as out:
    for region, total in sorted(totals.items(), key=lambda kv: kv[1], reverse=True):
        out.write(f"{region}: {total:.2f}\n")
PY
