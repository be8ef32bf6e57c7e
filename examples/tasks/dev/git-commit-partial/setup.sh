# Setup of git-commit-partial: the user's identity, a fix to parse.py and a
# README update left uncommitted, and a scratch notes file that must stay
# out of the commit.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
cat >parse.py <<'PY'
"""Split the lines of a simple CSV file into fields."""

import csv


def parse_line(line):
    """The fields of one line: commas inside double quotes do not split."""
    return [field.strip() for field in next(csv.reader([line.rstrip("\n")]))]


def parse(text):
    """The rows of `text`, skipping blank lines."""
    return [parse_line(line) for line in text.splitlines() if line.strip()]
PY
cat >>README.md <<'MD'
A field in double quotes may contain commas: `"Smith, Jane",42` has two fields.
MD
cat >notes.txt <<'TXT'
- ask Sam whether exports can contain newlines inside quotes
- benchmark against csv.reader on the big export
TXT
