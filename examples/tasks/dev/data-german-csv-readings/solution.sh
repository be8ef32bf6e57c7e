python3 - <<'PY'
import csv

with open("messwerte.csv", newline="") as f:
    rows = list(csv.reader(f, delimiter=";"))[1:]
out_rows = []
for day, sensor, temp, hum in rows:
    d, m, y = day.split(".")
    out_rows.append([f"{y}-{m}-{d}", sensor, temp.replace(",", "."), hum.replace(",", ".")])
out_rows.sort(key=lambda row: (row[0], row[1]))
with open("readings.csv", "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["date", "sensor", "temperature_c", "humidity_pct"])
    writer.writerows(out_rows)
PY
