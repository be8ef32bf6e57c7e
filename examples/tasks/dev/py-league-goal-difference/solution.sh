# The away team's goal difference is its own goals minus the home team's.
python3 - <<'PY'
path = "table.py"
src = open(path).read()
bad = '        a["GD"] += hg - ag\n'
assert src.count(bad) == 1
open(path, "w").write(src.replace(bad, '        a["GD"] += ag - hg\n'))
PY
