"""Print a table of the disk usage of our servers, fullest first.

Run it with the project's virtualenv: .venv/bin/python disk_report.py
"""

import csv

import yaml
from tabulate import tabulate


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    with open("report.yaml") as f:
        options = yaml.safe_load(f)
    rows = []
    for row in load(options["input"]):
        used, size = float(row["used_gb"]), float(row["size_gb"])
        rows.append([row["host"], row["mount"], size, used, round(100 * used / size, 1)])
    rows.sort(key=lambda r: r[4], reverse=True)
    warn = options["warn_percent"]
    for r in rows:
        r.append("FULL" if r[4] >= warn else "")
    print(tabulate(rows, headers=["host", "mount", "size GB", "used GB", "used %", ""],
                   tablefmt=options["style"]))


if __name__ == "__main__":
    main()
