# Hidden check of git-revert-older-commit: one new commit on main, a git
# revert of "Switch dates to US format" whose change is exactly the reverse
# of that commit; the later commits kept; tests pass; clean tree.
set -euo pipefail
test "$(git symbolic-ref -q HEAD || true)" = refs/heads/main || { echo "not on branch main"; exit 1; }
test "$(git rev-list --count HEAD)" = 5 || { echo "expected the 4 commits plus exactly one revert commit, found $(git rev-list --count HEAD) commits"; exit 1; }
subjects="$(git log -4 --format=%s HEAD~1 | tr '\n' '|')"
test "$subjects" = "Update README|Add VAT number to the invoice header|Switch dates to US format|task: $(basename "$TASK_DIR")|" || { echo "the earlier history was rewritten: $subjects"; exit 1; }
test "$(git log -1 --format=%s HEAD)" = 'Revert "Switch dates to US format"' || { echo "HEAD is not a git revert of 'Switch dates to US format' (it is '$(git log -1 --format=%s HEAD)')"; exit 1; }
changes() { git diff -U0 "$1" "$2" | grep -E '^[-+]' | grep -vE '^(\+\+\+|---) ' || true; }
if [ "$(changes HEAD~1 HEAD)" != "$(changes HEAD~3 HEAD~4)" ]; then
    echo "the new commit is not the exact reverse of 'Switch dates to US format':"
    git diff HEAD~1 HEAD
    exit 1
fi
grep -q '^DATE_FORMAT = "%Y-%m-%d"$' invoice.py || { echo "invoice.py does not use the ISO date format again"; exit 1; }
grep -q 'VAT no. {VAT_NUMBER}' invoice.py || { echo "the VAT number change was lost"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'the working tree is not clean:\n%s\n' "$status"
    exit 1
fi
python3 -m unittest -q
