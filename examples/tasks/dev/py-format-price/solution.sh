python3 - <<'PY'
path = "receipt.py"
src = open(path).read()
src = src.replace('return "$" + str(round(amount, 2))', 'return f"${amount:.2f}"')
open(path, "w").write(src)
PY
