# Hidden check of git-revert-broken: the bad commit was undone by a revert
# commit on top of it (history kept), and the tests pass.
set -euo pipefail
test "$(git rev-list --count HEAD)" = 4 || { echo "expected the 3 commits plus one revert commit"; exit 1; }
test "$(git log -1 --format=%s HEAD^)" = "Simplify the discount in total" || { echo "the bad commit is no longer under HEAD"; exit 1; }
git log -1 --format=%s HEAD | grep -q '^Revert "Simplify the discount in total"$' || { echo "HEAD is not a git revert of the bad commit"; exit 1; }
git diff --quiet HEAD~2 HEAD || { echo "HEAD does not restore the tree before the bad commit"; exit 1; }
status="$(git status --porcelain | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'uncommitted changes:\n%s\n' "$status"
    exit 1
fi
python3 -m unittest
