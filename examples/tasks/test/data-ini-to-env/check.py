"""Hidden check of data-ini-to-env: app.env has one SECTION_KEY=value line per
setting of the task's pristine app.ini, in file order, nothing else but
blank lines and # comments."""

import configparser
import os
import sys

ini = configparser.RawConfigParser()
ini.read(os.path.join(os.environ["TASK_DIR"], "workspace", "app.ini"))
expected = [f"{section}_{key}".upper() + f"={value}" for section in ini.sections() for key, value in ini.items(section)]
assert len(expected) == 12, expected

try:
    with open("app.env") as f:
        lines = f.read().splitlines()
except FileNotFoundError:
    sys.exit("app.env is missing")
actual = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
if actual != expected:
    sys.exit("expected:\n" + "\n".join(expected) + "\ngot:\n" + "\n".join(actual))
