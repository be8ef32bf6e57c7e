# Hidden check of env-venv-declare-dependency: slugify is imported from
# inside .venv (python-slugify, not another package that happens to provide
# a slugify module), pyproject.toml's dependencies list python-slugify and
# still PyYAML, and the tests pass with the .venv's Python.
set -euo pipefail
test -x .venv/bin/python || { echo ".venv/bin/python is missing"; exit 1; }
where="$(.venv/bin/python -c 'import os, slugify; print(os.path.realpath(slugify.__file__))' 2>&1)" || { echo ".venv cannot import slugify: $where"; exit 1; }
venv="$(realpath .venv)"
case "$where" in
    "$venv"/*) ;;
    *) echo "slugify is imported from $where, not from the project's .venv"; exit 1 ;;
esac
.venv/bin/python -c 'import importlib.metadata as m; m.version("python-slugify")' 2>/dev/null || { echo "the .venv's slugify module is not the python-slugify distribution"; exit 1; }
python3 - <<'PY'
import re
import sys
import tomllib

with open("pyproject.toml", "rb") as f:
    deps = tomllib.load(f).get("project", {}).get("dependencies", [])
names = [re.split(r"[\s\[<>=!~;@(]", d.strip(), maxsplit=1)[0].lower().replace("_", "-").replace(".", "-") for d in deps]
if "python-slugify" not in names:
    sys.exit(f"pyproject.toml's dependencies do not declare python-slugify: {deps}")
if "pyyaml" not in names:
    sys.exit(f"pyproject.toml lost PyYAML: {deps}")
PY
set -o pipefail
.venv/bin/python -m pytest -q -p no:cacheprovider 2>&1 | tee /dev/stderr | grep -q '^5 passed'
