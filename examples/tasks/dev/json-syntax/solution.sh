python3 - <<'PY'
path = "config.json"
src = open(path).read()
src = src.replace('    "pool_size": 4\n  }\n', '    "pool_size": 4\n  },\n')
src = src.replace('"reports",]', '"reports"]')
open(path, "w").write(src)
PY
