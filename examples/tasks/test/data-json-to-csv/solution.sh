python3 - <<'PY'
import csv
import json

with open("users.json", encoding="utf-8") as f:
    users = json.load(f)
with open("users.csv", "w", newline="", encoding="utf-8") as out:
    writer = csv.writer(out)
    writer.writerow(["id", "name", "email", "city", "country"])
    for u in users:
        writer.writerow([u["id"], u["name"], u["email"], u["address"]["city"], u["address"]["country"]])
PY
