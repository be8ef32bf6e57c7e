# Parse the marks as decimal numbers and sort them numerically.
python3 - <<'PY'
path = "judges.js"
src = open(path).read()
src = src.replace("const sorted = marks.sort();", "const sorted = [...marks].sort((a, b) => a - b);")
src = src.replace("const marks = fields.map(parseInt);", "const marks = fields.map(Number);")
open(path, "w").write(src)
PY
