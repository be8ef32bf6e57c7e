"""Hidden check of refactor-extract-helper: the tests pass, and register and
check_login both go through accounts.normalize_email."""

import re
import subprocess
import sys

run = subprocess.run(
    [sys.executable, "-m", "unittest", "test_accounts"], capture_output=True, text=True
)
print(run.stderr, file=sys.stderr)
if run.returncode != 0 or not re.search(r"^Ran 5 tests in ", run.stderr, re.M):
    sys.exit("check failed: python3 -m unittest test_accounts does not pass")

sys.path.insert(0, ".")
import accounts  # noqa: E402

calls = []
real = accounts.normalize_email


def spy(email):
    calls.append(email)
    return real(email)


accounts.normalize_email = spy
accounts.clear()
accounts.register(" Bob@Example.com", "pw")
if calls != [" Bob@Example.com"]:
    sys.exit(f"check failed: register does not call normalize_email once (calls: {calls})")
calls.clear()
if not accounts.check_login("BOB@example.com", "pw"):
    sys.exit("check failed: check_login no longer finds the account")
if calls != ["BOB@example.com"]:
    sys.exit(f"check failed: check_login does not call normalize_email once (calls: {calls})")

# The copied block is gone: the validity test appears once in the module.
source = open("accounts.py").read()
if source.count('.count("@")') + source.count(".count('@')") > 1:
    sys.exit("check failed: the email validation is still duplicated")
print("ok")
