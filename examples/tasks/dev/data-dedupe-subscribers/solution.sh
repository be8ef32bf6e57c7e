python3 - <<'PY'
import csv

with open("subscribers.csv", newline="") as f:
    rows = list(csv.reader(f))
seen = set()
with open("subscribers_clean.csv", "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(rows[0])
    for row in rows[1:]:
        if not row:
            continue
        email = row[0].strip().lower()
        if "@" not in email or email in seen:
            continue
        seen.add(email)
        writer.writerow([email] + row[1:])
PY
