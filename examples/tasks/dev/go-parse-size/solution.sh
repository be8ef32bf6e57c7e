# "B" matched before "KB"/"MB"/"GB": try the longer suffixes first.
python3 - <<'PY'
path = "size.go"
src = open(path).read()
src = src.replace('''	{"B", 1},
	{"KB", 1 << 10},
	{"MB", 1 << 20},
	{"GB", 1 << 30},
''', '''	{"KB", 1 << 10},
	{"MB", 1 << 20},
	{"GB", 1 << 30},
	{"B", 1},
''')
open(path, "w").write(src)
PY
