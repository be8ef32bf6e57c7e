# Hidden check of git-untrack-env: one new commit, 'Stop tracking .env',
# removes .env from the repository and ignores it; the file itself is kept
# unchanged on disk; .env.example stays tracked.
set -euo pipefail
test "$(git rev-list --count HEAD)" = 2 || { echo "expected exactly one new commit"; exit 1; }
test "$(git log -1 --format=%B | sed -e '/^$/d')" = "Stop tracking .env" || { echo "wrong message"; exit 1; }
! git cat-file -e HEAD:.env 2>/dev/null || { echo ".env is still in the commit"; exit 1; }
git cat-file -e HEAD:.env.example || { echo ".env.example is no longer tracked"; exit 1; }
git show HEAD:.gitignore | grep -qx '__pycache__/' || { echo ".gitignore lost its entries"; exit 1; }
git check-ignore -q .env || { echo ".env is not ignored"; exit 1; }
! git check-ignore -q .env.example || { echo ".env.example is ignored too"; exit 1; }
cmp -s .env "$TASK_DIR/workspace/.env" || { echo ".env on disk is missing or changed"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'work tree not clean:\n%s\n' "$status"
    exit 1
fi
