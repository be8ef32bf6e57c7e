python3 - <<'PY'
import configparser
import csv
import glob

rows = []
for path in glob.glob("hosts/*.ini"):
    ini = configparser.ConfigParser()
    ini.read(path)
    host = ini["host"]
    if host["status"].lower() == "retired":
        continue
    memory = host["memory"].upper()
    gb = int(memory[:-1]) // 1024 if memory.endswith("M") else int(memory[:-1])
    rows.append([host["name"], host["os"], int(host["cpus"]), gb])
with open("inventory.csv", "w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["hostname", "os", "cpus", "memory_gb"])
    writer.writerows(sorted(rows))
PY
