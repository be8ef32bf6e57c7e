# Hidden check of git-resolve-merge-conflict: on main, HEAD is a merge commit
# of the old main tip and feature/retry; settings.py has TIMEOUT_SECONDS 30,
# RETRIES 3, BACKOFF_SECONDS 1.5 and its other settings, without conflict
# markers; poller.py has the branch's retry loop; the tree is clean.
set -euo pipefail
test "$(git symbolic-ref -q HEAD || true)" = refs/heads/main || { echo "not on main"; exit 1; }
! git rev-parse -q --verify MERGE_HEAD >/dev/null || { echo "the merge is still in progress (MERGE_HEAD exists)"; exit 1; }
parents="$(git log -1 --format=%P HEAD)"
set -- $parents
test "$#" = 2 || { echo "HEAD is not a merge commit (parents: $parents)"; exit 1; }
test "$(git log -1 --format=%s "$1")" = "Raise the request timeout to 30 s" || { echo "the merge's first parent is not main's previous tip"; exit 1; }
test "$2" = "$(git rev-parse feature/retry)" || { echo "the merge's second parent is not feature/retry"; exit 1; }
test "$(git log -1 --format=%s feature/retry)" = "Retry failed requests with backoff" || { echo "feature/retry moved"; exit 1; }
git show HEAD:settings.py >/tmp/merged-settings.$$.py
trap 'rm -f /tmp/merged-settings.$$.py' EXIT
if grep -nE '^(<<<<<<<|=======|>>>>>>>)' /tmp/merged-settings.$$.py; then
    echo "conflict markers left in settings.py"
    exit 1
fi
python3 - /tmp/merged-settings.$$.py <<'PY'
import runpy
import sys

s = runpy.run_path(sys.argv[1])
expected = {
    "API_URL": "https://quotes.example.com/v2",
    "SYMBOLS": ["ACME", "GLOBEX", "INITECH"],
    "TIMEOUT_SECONDS": 30,
    "RETRIES": 3,
    "BACKOFF_SECONDS": 1.5,
    "POLL_EVERY_SECONDS": 60,
}
wrong = {k: s.get(k) for k, v in expected.items() if s.get(k) != v}
if wrong:
    sys.exit(f"wrong settings in the merged settings.py: {wrong}")
PY
git show HEAD:poller.py | grep -q 'for attempt in range(settings.RETRIES + 1):' || { echo "poller.py lost the branch's retry loop"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'the work tree is not clean:\n%s\n' "$status"
    exit 1
fi
