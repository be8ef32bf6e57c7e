python3 - <<'PY'
path = "accounts.py"
src = open(path).read()
block = '''    email = email.strip().lower()
    if email.count("@") != 1 or email.startswith("@") or email.endswith("@"):
        raise ValueError(f"invalid email address: {email!r}")
'''
src = src.replace(block, "    email = normalize_email(email)\n")
helper = '''def normalize_email(email):
    """Return email trimmed and lowercased; raise ValueError if it is invalid."""
''' + block + "    return email\n\n\n"
src = src.replace("def register(", helper + "def register(")
open(path, "w").write(src)
PY
