python3 - <<'PY'
import json
from collections import Counter

units = Counter()
for line in open("orders.jsonl"):
    order = json.loads(line)
    units[order["product"]] += order["qty"]
with open("top5.txt", "w") as out:
    for i, (name, n) in enumerate(units.most_common(5), 1):
        out.write(f"{i}. {name} ({n})\n")
PY
