# A list default is shared by every call: default to None instead.
python3 - <<'PY'
path = "cart.py"
src = open(path).read()
src = src.replace(
    "    def __init__(self, items=[]):\n        self.items = items\n",
    "    def __init__(self, items=None):\n        self.items = items if items is not None else []\n",
)
open(path, "w").write(src)
PY
