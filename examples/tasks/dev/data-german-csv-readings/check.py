"""Hidden check of data-german-csv-readings: readings.csv has the header
date,sensor,temperature_c,humidity_pct and the rows of the task's pristine
messwerte.csv with ISO dates and decimal points (numbers compared by value),
empty humidity kept empty, sorted by date then sensor."""

import csv
import os
import sys

with open(os.path.join(os.environ["TASK_DIR"], "workspace", "messwerte.csv"), newline="") as f:
    rows = list(csv.reader(f, delimiter=";"))[1:]
expected = []
for day, sensor, temp, hum in rows:
    d, m, y = day.split(".")
    expected.append((f"{y}-{m}-{d}", sensor, float(temp.replace(",", ".")),
                     float(hum.replace(",", ".")) if hum else None))
expected.sort(key=lambda row: (row[0], row[1]))

try:
    with open("readings.csv", newline="") as f:
        actual = [row for row in csv.reader(f) if row]
except FileNotFoundError:
    sys.exit("readings.csv is missing")
if not actual or [c.strip() for c in actual[0]] != ["date", "sensor", "temperature_c", "humidity_pct"]:
    sys.exit(f"wrong header: {actual[:1]}")
got = []
for row in actual[1:]:
    if len(row) != 4:
        sys.exit(f"not 4 fields: {row}")
    day, sensor, temp, hum = (c.strip() for c in row)
    try:
        got.append((day, sensor, float(temp), float(hum) if hum else None))
    except ValueError:
        sys.exit(f"not a plain number in {row}")


def show(rows):
    return "".join(f"{d},{s},{t},{'' if h is None else h}\n" for d, s, t, h in rows)


if got != expected:
    sys.exit(f"expected (by value):\n{show(expected)}got:\n{show(got)}")
