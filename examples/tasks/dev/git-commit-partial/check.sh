# Hidden check of git-commit-partial: one new commit with the stated message
# holding the parse.py and README.md changes; notes.txt is left out, still
# on disk and untracked.
set -euo pipefail
test "$(git rev-list --count HEAD)" = 2 || { echo "expected exactly one new commit"; exit 1; }
test "$(git log -1 --format=%B | sed -e '/^$/d')" = "Handle quoted fields in parse_line" || { echo "wrong message"; exit 1; }
git show HEAD:parse.py | grep -q 'csv.reader' || { echo "parse.py change not committed"; exit 1; }
git show HEAD:README.md | grep -q 'Smith, Jane' || { echo "README.md change not committed"; exit 1; }
! git cat-file -e HEAD:notes.txt 2>/dev/null || { echo "notes.txt was committed"; exit 1; }
grep -q 'ask Sam' notes.txt || { echo "notes.txt is gone or changed"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ "$status" != "?? notes.txt" ]; then
    printf 'expected only notes.txt left untracked, got:\n%s\n' "$status"
    exit 1
fi
