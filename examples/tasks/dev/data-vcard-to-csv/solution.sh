python3 - <<'PY'
import csv

lines = []
for line in open("contacts.vcf", encoding="utf-8").read().splitlines():
    if line.startswith((" ", "\t")) and lines:
        lines[-1] += line[1:]
    else:
        lines.append(line)
rows = []
for line in lines:
    if ":" not in line:
        continue
    prop, value = line.split(":", 1)
    name = prop.split(";")[0].upper()
    if name == "BEGIN":
        card = {}
    elif name == "END":
        rows.append([card.get("FN", ""), card.get("EMAIL", ""), card.get("TEL", "")])
    elif name in ("FN", "EMAIL", "TEL") and name not in card:
        card[name] = value.strip()
with open("contacts.csv", "w", newline="", encoding="utf-8") as out:
    writer = csv.writer(out)
    writer.writerow(["name", "email", "phone"])
    writer.writerows(rows)
PY
