python3 - <<'PY'
path = "inventory.py"
src = open(path).read()
src = src.replace(
    "    for item in items:\n        total = 0\n",
    "    total = 0\n    for item in items:\n",
)
open(path, "w").write(src)
PY
