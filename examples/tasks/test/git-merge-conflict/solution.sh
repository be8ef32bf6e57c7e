python3 - <<'PY'
import re
path = "CHANGELOG.md"
src = open(path).read()
src = re.sub(r"<<<<<<< [^\n]*\n(.*?)=======\n(.*?)>>>>>>> [^\n]*\n", r"\1\2", src, flags=re.S)
open(path, "w").write(src)
PY
git add CHANGELOG.md
git commit -q --no-edit
