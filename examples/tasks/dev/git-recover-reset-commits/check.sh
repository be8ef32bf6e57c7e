# Hidden check of git-recover-reset-commits: main is back at the very
# commit 'Add --imperial flag' it was at before the reset (found in main's
# reflog), with 'Round scaled amounts to sensible units' under it; the
# uncommitted README.md edit is still there and nothing else changed.
set -euo pipefail
test "$(git symbolic-ref -q HEAD || true)" = refs/heads/main || { echo "not on branch main"; exit 1; }
lost="$(git reflog show --format='%H %gs' refs/heads/main | awk '$2 == "commit:" && $0 ~ /Add --imperial flag$/ { print $1; exit }')"
test -n "$lost" || { echo "main's reflog no longer shows the commit 'Add --imperial flag'"; exit 1; }
test "$(git rev-parse HEAD)" = "$lost" || { echo "main is not back at the original 'Add --imperial flag' commit (it is at '$(git log -1 --format=%s HEAD)')"; exit 1; }
subjects="$(git log --format=%s | tr '\n' '|')"
test "$subjects" = "Add --imperial flag|Round scaled amounts to sensible units|Scale recipes by servings|task: $(basename "$TASK_DIR")|" || { echo "unexpected history: $subjects"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
test "$status" = " M README.md" || { printf 'expected only the uncommitted README.md edit, git status says:\n%s\n' "$status"; exit 1; }
expected="$(cat "$TASK_DIR/workspace/README.md"; printf '\nAmounts are scaled and then rounded: whole eggs, grams and millilitres to\nthe nearest 5.\n')"
test "$(cat README.md)" = "$expected" || { echo "the uncommitted README.md edit is lost or changed"; exit 1; }
python3 recipe.py pancakes.txt 6 --imperial | grep -qx '13.2 oz flour' || { echo "recipe.py pancakes.txt 6 --imperial does not work"; exit 1; }
