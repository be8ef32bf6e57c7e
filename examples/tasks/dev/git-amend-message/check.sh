# Hidden check of git-amend-message: the last commit, amended rather than
# followed by a new one, has the right message and the same change.
set -euo pipefail
test "$(git rev-list --count HEAD)" = 2 || { echo "expected the first commit plus the amended one"; exit 1; }
test "$(git log -1 --format=%B | sed -e '/^$/d')" = "Fix pagination offset" || { echo "wrong message: $(git log -1 --format=%s)"; exit 1; }
test "$(git diff --name-only HEAD^ HEAD)" = pager.py || { echo "the commit's files changed"; exit 1; }
git show HEAD:pager.py | grep -qx '    start = (number - 1) \* size' || { echo "the commit lost its change"; exit 1; }
status="$(git status --porcelain | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'uncommitted changes:\n%s\n' "$status"
    exit 1
fi
