# Compare the dates as calendar days, not as day-of-month numbers.
python3 - <<'PY'
path = "streak.js"
src = open(path).read()
src = src.replace('''  return Number(b.slice(8, 10)) === Number(a.slice(8, 10)) + 1;
''', '''  return Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`) === 86400000;
''')
open(path, "w").write(src)
PY
