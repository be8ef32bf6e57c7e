# Hidden check of git-branch-stay: branch fix/empty-input is checked out,
# with one commit 'Handle empty input' on top of main holding both changes;
# main is untouched; nothing is left uncommitted.
set -euo pipefail
test "$(git symbolic-ref --short HEAD)" = fix/empty-input || { echo "not on fix/empty-input"; exit 1; }
test "$(git rev-list --count main)" = 1 || { echo "main got new commits"; exit 1; }
test "$(git rev-list --count HEAD)" = 2 || { echo "expected exactly one commit on top of main"; exit 1; }
test "$(git rev-parse HEAD^)" = "$(git rev-parse main)" || { echo "the branch does not start from main"; exit 1; }
test "$(git log -1 --format=%B | sed -e '/^$/d')" = "Handle empty input" || { echo "wrong message"; exit 1; }
git show HEAD:avg.py | grep -q 'if not numbers:' || { echo "avg.py change not committed"; exit 1; }
git show HEAD:test_avg.py | grep -q 'def test_empty_input' || { echo "test_avg.py change not committed"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'work tree not clean:\n%s\n' "$status"
    exit 1
fi
