# Hidden check of git-split-two-commits: two new commits on top of the
# first one; the first has the stated message and exactly the pristine
# fetch.py with the parse_timeout fix (nothing of --dry-run, README.md
# untouched), the second the stated message and the full change; the work
# tree is clean.
set -euo pipefail
test "$(git rev-list --count HEAD)" = 3 || { echo "expected exactly two new commits, found $(( $(git rev-list --count HEAD) - 1 ))"; exit 1; }
msg() { git log -1 --format=%B "$1" | sed -e '/^$/d'; }
test "$(msg HEAD~1)" = "Fix parsing of fractional timeouts" || { echo "the first new commit's message is '$(msg HEAD~1)'"; exit 1; }
test "$(msg HEAD)" = "Add --dry-run option" || { echo "the second new commit's message is '$(msg HEAD)'"; exit 1; }
test "$(git diff --name-only HEAD~2 HEAD~1)" = "fetch.py" || { echo "the first commit should change fetch.py only, it changes: $(git diff --name-only HEAD~2 HEAD~1 | tr '\n' ' ')"; exit 1; }
expected="$(python3 - "$TASK_DIR/workspace/fetch.py" <<'PY'
import sys
src = open(sys.argv[1]).read()
print(src.replace('''        return int(text[:-1]) * 60
    return int(text)
''', '''        return float(text[:-1]) * 60
    return float(text)
'''), end="")
PY
)"
if [ "$(git show HEAD~1:fetch.py)" != "$expected" ]; then
    echo "fetch.py in the first commit is not the original plus just the parse_timeout fix:"
    diff <(printf '%s\n' "$expected") <(git show HEAD~1:fetch.py) || true
    exit 1
fi
git show HEAD:fetch.py | grep -q 'if args.dry_run:' || { echo "the --dry-run code is not in the second commit"; exit 1; }
git show HEAD:fetch.py | grep -q 'return float(text)' || { echo "the second commit lost the fix"; exit 1; }
git show HEAD:README.md | grep -q -- '--dry-run' || { echo "README.md change not committed"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'uncommitted changes left:\n%s\n' "$status"
    exit 1
fi
