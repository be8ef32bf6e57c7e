# Hidden check of git-restore-deleted-file: one new commit with the stated
# message that brings back config/rates.json as it was just before the
# cleanup (with the express zone), and nothing else the cleanup removed.
set -euo pipefail
test "$(git symbolic-ref -q HEAD || true)" = refs/heads/main || { echo "not on branch main"; exit 1; }
test "$(git rev-list --count HEAD)" = 5 || { echo "expected the 4 commits plus exactly one new commit, found $(git rev-list --count HEAD) commits"; exit 1; }
test "$(git log -1 --format=%s HEAD~2)" = "Clean up unused files" || { echo "the history was rewritten"; exit 1; }
test "$(git log -1 --format=%s HEAD~1)" = "Say where the rates are in the README" || { echo "the history was rewritten"; exit 1; }
test "$(git log -1 --format=%B HEAD | sed -e '/^$/d')" = "Restore config/rates.json" || { echo "wrong message: $(git log -1 --format=%s HEAD)"; exit 1; }
test "$(git diff --name-only HEAD~1 HEAD)" = config/rates.json || { echo "the new commit should only add config/rates.json, it changes: $(git diff --name-only HEAD~1 HEAD | tr '\n' ' ')"; exit 1; }
test "$(git rev-parse HEAD:config/rates.json)" = "$(git rev-parse HEAD~3:config/rates.json)" || { echo "config/rates.json is not the version from just before the cleanup"; exit 1; }
for gone in docs/old-rates.md scripts/import_rates.py; do
    ! git cat-file -e "HEAD:$gone" 2>/dev/null || { echo "$gone came back too"; exit 1; }
done
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'the working tree is not clean:\n%s\n' "$status"
    exit 1
fi
python3 -m unittest
