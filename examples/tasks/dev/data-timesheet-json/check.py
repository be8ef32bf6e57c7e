"""Hidden check of data-timesheet-json: hours.json holds the total hours and,
per lowercased trimmed project name, the hours and the sorted distinct
people, from the rows of the task's pristine timesheet.csv that have numeric
hours."""

import csv
import json
import os
import sys

total = 0.0
projects = {}
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "timesheet.csv"), newline="") as f:
    for row in csv.DictReader(f):
        try:
            hours = float(row["hours"])
        except (TypeError, ValueError):
            continue
        project = projects.setdefault(row["project"].strip().lower(), {"hours": 0.0, "people": set()})
        project["hours"] += hours
        project["people"].add(row["person"].strip())
        total += hours
expected = {
    "total_hours": total,
    "projects": {
        name: {"hours": p["hours"], "people": sorted(p["people"])} for name, p in projects.items()
    },
}


def fail(why):
    sys.exit(f"{why}\nexpected (key order aside):\n{json.dumps(expected, indent=2)}")


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


try:
    with open("hours.json") as f:
        actual = json.load(f)
except FileNotFoundError:
    sys.exit("hours.json is missing")
except json.JSONDecodeError as e:
    sys.exit(f"hours.json is not valid JSON: {e}")
if not isinstance(actual, dict) or set(actual) != {"total_hours", "projects"}:
    fail(f"the top level should have exactly total_hours and projects, got {actual!r:.200}")
if not number(actual["total_hours"]) or abs(actual["total_hours"] - total) > 1e-6:
    fail(f"total_hours: got {actual['total_hours']!r}")
got = actual["projects"]
if not isinstance(got, dict) or set(got) != set(expected["projects"]):
    fail(f"project keys: got {sorted(got) if isinstance(got, dict) else got!r}")
for name, want in expected["projects"].items():
    have = got[name]
    if not isinstance(have, dict) or set(have) != {"hours", "people"}:
        fail(f"{name}: should have exactly hours and people, got {have!r}")
    if not number(have["hours"]) or abs(have["hours"] - want["hours"]) > 1e-6:
        fail(f"{name}: hours {have['hours']!r}")
    if have["people"] != want["people"]:
        fail(f"{name}: people {have['people']!r}")
