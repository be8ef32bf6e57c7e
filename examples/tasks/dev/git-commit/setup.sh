# Setup of git-commit: the user's identity, and work left uncommitted: a
# changed file and a new one.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
mkdir -p templates
printf 'Hello, {name}!\n' >templates/greeting.txt
cat >greet.py <<'PY'
"""Greetings for the command line."""

import sys
from pathlib import Path

TEMPLATE = Path(__file__).parent / "templates" / "greeting.txt"


def greeting(name):
    return TEMPLATE.read_text().format(name=name)


def main(argv):
    print(greeting(argv[1] if len(argv) > 1 else "world"), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
PY
