python3 - <<'PY'
import json
from collections import Counter

counts = Counter()
for line in open("signups.jsonl"):
    if line.strip():
        row = json.loads(line)
        if not row["email"].lower().endswith("@internal.test"):
            counts[row["created"][:7]] += 1
year, month = map(int, min(counts).split("-"))
with open("signups_by_month.txt", "w") as out:
    while f"{year:04d}-{month:02d}" <= max(counts):
        key = f"{year:04d}-{month:02d}"
        out.write(f"{key} {counts[key]}\n")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
PY
