python3 - <<'PY'
import ast
import pathlib

names = set()
for path in pathlib.Path("src").rglob("*.py"):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
names.discard("tracker")
pathlib.Path("imports.txt").write_text("".join(name + "\n" for name in sorted(names)))
PY
