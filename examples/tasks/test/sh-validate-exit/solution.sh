# The piped while loop ran in a subshell, so its counts were lost: feed the
# loop from a process substitution instead.
python3 - <<'PY'
path = "validate.sh"
src = open(path).read()
src = src.replace("find \"$dir\" -name '*.conf' | sort | while read -r file; do",
                  "while read -r file; do")
src = src.replace("done\necho", "done < <(find \"$dir\" -name '*.conf' | sort)\necho")
open(path, "w").write(src)
PY
