python3 - <<'PY'
from collections import Counter

seen = set()
counts = Counter()
with open("tickets.tsv") as f:
    next(f)
    for line in f:
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 4:
            continue
        ticket, status, assignee, _ = fields
        assignee = assignee.strip().lower()
        if ticket in seen or not assignee or status.lower() not in ("open", "reopened"):
            continue
        seen.add(ticket)
        counts[assignee] += 1
with open("open_by_assignee.txt", "w") as out:
    for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        out.write(f"{name}: {n}\n")
PY
