python3 - <<'PY'
path = "backup.sh"
src = open(path).read()
src = src.replace('for f in $(ls notes/*.txt); do\n    cp $f backup/\n',
                  'for f in notes/*.txt; do\n    cp "$f" backup/\n')
open(path, "w").write(src)
PY
