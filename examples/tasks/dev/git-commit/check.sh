# Hidden check of git-commit: one new commit, 'Add greeting', with all the
# changes that setup left (nothing discarded, nothing left over).
set -euo pipefail
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'uncommitted changes:\n%s\n' "$status"
    exit 1
fi
test "$(git log -1 --format=%B | sed -e '/^$/d')" = "Add greeting" || { echo "wrong message"; exit 1; }
# All of the changes are in that one commit.
test "$(git show HEAD:templates/greeting.txt)" = "Hello, {name}!"
grep -q '^def greeting(name):$' <<<"$(git show HEAD:greet.py)"
! git cat-file -e HEAD^:templates/greeting.txt 2>/dev/null || { echo "the new file is in an earlier commit"; exit 1; }
! grep -q '^def greeting(name):$' <<<"$(git show HEAD^:greet.py)" || { echo "greet.py changed in an earlier commit"; exit 1; }
