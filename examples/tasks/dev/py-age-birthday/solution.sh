python3 - <<'PY'
path = "people.py"
src = open(path).read()
src = src.replace(
    "    return today.year - birthday.year\n",
    "    before_birthday = (today.month, today.day) < (birthday.month, birthday.day)\n"
    "    return today.year - birthday.year - before_birthday\n",
)
open(path, "w").write(src)
PY
