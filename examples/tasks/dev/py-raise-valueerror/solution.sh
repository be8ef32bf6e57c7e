python3 - <<'PY'
path = "percent.py"
src = open(path).read()
src = src.replace(
    "    return value\n",
    "    if not 0 <= value <= 100:\n"
    "        raise ValueError(f\"percentage out of range: {text!r}\")\n"
    "    return value\n",
)
open(path, "w").write(src)
PY
