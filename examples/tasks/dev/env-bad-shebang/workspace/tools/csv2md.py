#!/usr/local/opt/python@3.9/bin/python3.9
"""Print a CSV file as a Markdown table.

Usage: tools/csv2md.py FILE.csv
"""

import csv
import sys


def main(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in body:
        print("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
