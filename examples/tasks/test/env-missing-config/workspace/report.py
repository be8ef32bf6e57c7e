"""Print the sales report described by config.ini."""

import configparser
import csv
import sys
from collections import defaultdict
from pathlib import Path

CONFIG = Path("config.ini")


def main():
    if not CONFIG.exists():
        sys.exit("error: missing config.ini (see config.example.ini)")
    config = configparser.ConfigParser()
    config.read(CONFIG)
    report = config["report"]
    decimals = report.getint("decimals")
    currency = report["currency"]
    totals = defaultdict(float)
    with open(report["input"], newline="") as f:
        for row in csv.DictReader(f):
            totals[row["region"]] += float(row["amount"])
    print(report["title"])
    for region in sorted(totals):
        print(f"{region}: {totals[region]:.{decimals}f} {currency}")
    print(f"total: {sum(totals.values()):.{decimals}f} {currency}")


if __name__ == "__main__":
    main()
