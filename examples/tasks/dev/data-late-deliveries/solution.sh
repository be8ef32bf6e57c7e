python3 - <<'PY'
import csv
import json

seen = set()
stats = {}
for line in open("deliveries.jsonl"):
    if not line.strip():
        continue
    d = json.loads(line)
    if d["id"] in seen or not d.get("delivered_at"):
        continue
    seen.add(d["id"])
    s = stats.setdefault(d["driver"], [0, 0])
    s[0] += 1
    s[1] += d["delivered_at"] > d["due_by"]
rows = [(driver, n, late, round(late * 100 / n, 1)) for driver, (n, late) in stats.items()]
rows.sort(key=lambda row: (-row[3], row[0]))
with open("drivers.csv", "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["driver", "delivered", "late", "late_percent"])
    for driver, n, late, pct in rows:
        writer.writerow([driver, n, late, f"{pct:.1f}"])
PY
