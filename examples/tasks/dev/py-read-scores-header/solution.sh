python3 - <<'PY'
path = "scores.py"
src = open(path).read()
src = src.replace("    with open(path) as f:\n", "    with open(path) as f:\n        next(f)\n")
open(path, "w").write(src)
PY
