# Setup of git-resolve-merge-conflict: on main, the timeout raised to 30;
# on feature/retry (from the first commit), retries with a backoff in
# settings.py and poller.py; then `git merge feature/retry` on main, which
# stops with a conflict in settings.py.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
git branch -M main
git checkout -q -b feature/retry
python3 - <<'PY'
path = "settings.py"
src = open(path).read()
src = src.replace("RETRIES = 0\n", "RETRIES = 3\nBACKOFF_SECONDS = 1.5\n")
open(path, "w").write(src)
path = "poller.py"
src = open(path).read()
src = src.replace('''def fetch(symbol):
    url = f"{settings.API_URL}/quote/{symbol}"
    with urllib.request.urlopen(url, timeout=settings.TIMEOUT_SECONDS) as response:
        return json.load(response)["price"]
''', '''def fetch(symbol):
    url = f"{settings.API_URL}/quote/{symbol}"
    for attempt in range(settings.RETRIES + 1):
        try:
            with urllib.request.urlopen(url, timeout=settings.TIMEOUT_SECONDS) as response:
                return json.load(response)["price"]
        except OSError:
            if attempt == settings.RETRIES:
                raise
            time.sleep(settings.BACKOFF_SECONDS * 2**attempt)
''')
open(path, "w").write(src)
PY
git commit -q -am 'Retry failed requests with backoff'
git checkout -q main
sed -i 's/^TIMEOUT_SECONDS = 10$/TIMEOUT_SECONDS = 30/' settings.py
git commit -q -am 'Raise the request timeout to 30 s'
if git merge -q feature/retry >/dev/null 2>&1; then
    echo "the merge was expected to conflict" >&2
    exit 1
fi
grep -q '^<<<<<<<' settings.py
