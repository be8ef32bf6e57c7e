# Hidden check of git-cherry-pick-fix: main got Sam's rounding fix as one
# cherry-picked commit (author kept, no merge, nothing else from the
# branch), feature/discounts is untouched, and the tests pass on main.
set -euo pipefail
test "$(git symbolic-ref -q HEAD || true)" = refs/heads/main || { echo "not on branch main"; exit 1; }
test -z "$(git rev-list --merges main)" || { echo "main has a merge commit"; exit 1; }
test "$(git rev-list --count main)" = 3 || { echo "expected main's 2 commits plus exactly one cherry-picked commit, found $(git rev-list --count main) commits"; exit 1; }
test "$(git log -1 --format=%s main^)" = "Document the price format" || { echo "main's history was rewritten"; exit 1; }
test "$(git log -1 --format=%s main)" = "Fix rounding of totals to cents" || { echo "main's new commit is not 'Fix rounding of totals to cents'"; exit 1; }
test "$(git log -1 --format='%an <%ae>' main)" = "Sam <sam@localhost>" || { echo "the new commit on main is not a cherry-pick of Sam's commit (author $(git log -1 --format='%an <%ae>' main))"; exit 1; }
test "$(git diff --name-only main^ main | sort | tr '\n' ' ')" = "money.py test_money.py " || { echo "the new commit on main changes other files: $(git diff --name-only main^ main | tr '\n' ' ')"; exit 1; }
test -z "$(git diff main feature/discounts~1 -- money.py test_money.py)" || { echo "money.py or test_money.py on main differ from the fix"; exit 1; }
! git cat-file -e main:discounts.py 2>/dev/null || { echo "discounts.py reached main"; exit 1; }
test "$(git rev-list --count feature/discounts)" = 4 || { echo "feature/discounts changed"; exit 1; }
test "$(git log -1 --format=%s feature/discounts)" = "WIP: stack several discount codes" || { echo "feature/discounts changed"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'the working tree is not clean:\n%s\n' "$status"
    exit 1
fi
python3 -m unittest
