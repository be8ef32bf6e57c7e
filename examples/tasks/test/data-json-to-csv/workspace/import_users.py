"""Imports users from a CSV file into the directory service (dry run)."""

import csv
import sys

FIELDS = ["id", "name", "email", "city", "country"]


def main(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != FIELDS:
            sys.exit(f"bad header {reader.fieldnames}, expected {FIELDS}")
        count = 0
        for row in reader:
            if not row["id"].isdigit():
                sys.exit(f"line {reader.line_num}: id must be a number: {row['id']!r}")
            if "@" not in row["email"]:
                sys.exit(f"line {reader.line_num}: bad email {row['email']!r}")
            count += 1
    print(f"imported {count} users")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "users.csv")
