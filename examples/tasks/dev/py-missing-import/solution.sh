python3 - <<'PY'
path = "geometry.py"
src = open(path).read()
doc_end = src.index('"""', 3) + 3
src = src[:doc_end] + "\n\nimport math" + src[doc_end:]
open(path, "w").write(src)
PY
