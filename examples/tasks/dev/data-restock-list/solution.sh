python3 - <<'PY'
import csv
import json

items = json.load(open("inventory.json"))["items"]
rows = []
for item in items:
    if item.get("discontinued"):
        continue
    shortfall = item["reorder_at"] - item.get("stock", 0)
    if shortfall > 0:
        rows.append((item["sku"], item["name"], shortfall))
rows.sort(key=lambda row: (-row[2], row[0]))
with open("reorder.csv", "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["sku", "name", "shortfall"])
    writer.writerows(rows)
PY
