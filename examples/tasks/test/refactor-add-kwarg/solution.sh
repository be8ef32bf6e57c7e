python3 - <<'PY'
path = "moneyfmt.py"
src = open(path).read()
src = src.replace("def format_amount(cents):", 'def format_amount(cents, symbol="$"):')
src = src.replace('return f"{sign}${cents', 'return f"{sign}{symbol}{cents')
open(path, "w").write(src)
PY
