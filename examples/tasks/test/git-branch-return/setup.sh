# Setup of git-branch-return: the branch is called main; the user's
# identity; uncommitted work: a new export.py and a change to cli.py.
set -euo pipefail
git branch -M main
git config user.name "Dev"
git config user.email "dev@localhost"
cat >export.py <<'PY'
"""Write contacts as CSV."""

import csv


def write_csv(contacts, out):
    writer = csv.writer(out)
    writer.writerow(["name", "email"])
    for contact in contacts:
        writer.writerow([contact["name"], contact["email"]])
PY
python3 - <<'PY'
path = "cli.py"
src = open(path).read()
src = src.replace("import json\n", "import json\nimport sys\n\nfrom export import write_csv\n")
src = src.replace(
    '    parser.add_argument("--list", action="store_true", help="print every contact")\n',
    '    parser.add_argument("--list", action="store_true", help="print every contact")\n'
    '    parser.add_argument("--csv", action="store_true", help="print the contacts as CSV")\n',
)
src = src.replace(
    "    return 0\n",
    "    if args.csv:\n        write_csv(contacts, sys.stdout)\n    return 0\n",
)
open(path, "w").write(src)
PY
grep -q 'write_csv(contacts' cli.py
