python3 - <<'PY'
import csv
import json

total = 0.0
projects = {}
with open("timesheet.csv", newline="") as f:
    for row in csv.DictReader(f):
        try:
            hours = float(row["hours"])
        except (TypeError, ValueError):
            continue
        name = row["project"].strip().lower()
        project = projects.setdefault(name, {"hours": 0.0, "people": set()})
        project["hours"] += hours
        project["people"].add(row["person"])
        total += hours
summary = {
    "total_hours": total,
    "projects": {
        name: {"hours": p["hours"], "people": sorted(p["people"])}
        for name, p in sorted(projects.items())
    },
}
with open("hours.json", "w") as out:
    json.dump(summary, out, indent=2)
    out.write("\n")
PY
