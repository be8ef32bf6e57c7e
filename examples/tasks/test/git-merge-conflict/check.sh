# Hidden check of git-merge-conflict: the merge is concluded as a merge
# commit of main and docs-update, CHANGELOG.md keeps both entries (main's
# first), README.md has the branch's change, nothing is left uncommitted.
set -euo pipefail
test ! -e .git/MERGE_HEAD || { echo "the merge is still in progress"; exit 1; }
test "$(git symbolic-ref --short HEAD)" = main || { echo "not on main"; exit 1; }
parents="$(git log -1 --format=%P HEAD)"
main_tip="$(git rev-parse ':/Fix crash on empty remote')"
branch_tip="$(git rev-parse docs-update)"
test "$parents" = "$main_tip $branch_tip" || { echo "HEAD is not the merge of main and docs-update: parents $parents"; exit 1; }
expected='# Changelog

## Unreleased

- Add `--verbose` flag to the sync command.
- Fix a crash when the remote folder is empty.
- Document the `pull` command in the README.

## 0.4.0

- Retry failed uploads up to three times.
- Drop support for the old config format.'
actual="$(git show HEAD:CHANGELOG.md)"
if [ "$actual" != "$expected" ]; then
    printf 'CHANGELOG.md in the merge commit:\n%s\n' "$actual"
    exit 1
fi
git show HEAD:README.md | grep -q 'filesync pull ./photos' || { echo "README.md lost the branch's change"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'work tree not clean:\n%s\n' "$status"
    exit 1
fi
