# Drop the "invalid user" words before the name, and sort the names before
# uniq -c counts them (it only merges adjacent lines).
python3 - <<'PY'
path = "failed_logins.sh"
src = open(path).read()
src = src.replace(
    """    | sed -E 's/.*Failed password for ([^ ]+) .*/\\1/' \\
    | uniq -c \\
""",
    """    | sed -E 's/.*Failed password for (invalid user )?([^ ]+) from .*/\\2/' \\
    | sort \\
    | uniq -c \\
""")
open(path, "w").write(src)
PY
