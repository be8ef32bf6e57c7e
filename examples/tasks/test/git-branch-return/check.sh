# Hidden check of git-branch-return: branch csv-export holds one new commit
# 'Add CSV export' with export.py and the cli.py change; the user is back on
# main, which is unchanged, and nothing is left uncommitted.
set -euo pipefail
test "$(git symbolic-ref --short HEAD)" = main || { echo "not on main"; exit 1; }
test "$(git rev-list --count main)" = 1 || { echo "main got new commits"; exit 1; }
git rev-parse -q --verify refs/heads/csv-export >/dev/null || { echo "no branch csv-export"; exit 1; }
test "$(git rev-list --count csv-export)" = 2 || { echo "csv-export should have exactly one commit on top of main"; exit 1; }
test "$(git rev-parse csv-export^)" = "$(git rev-parse main)" || { echo "csv-export does not start from main"; exit 1; }
test "$(git log -1 --format=%B csv-export | sed -e '/^$/d')" = "Add CSV export" || { echo "wrong message"; exit 1; }
git show csv-export:export.py | grep -q '^def write_csv(contacts, out):$' || { echo "export.py not committed"; exit 1; }
git show csv-export:cli.py | grep -q 'write_csv(contacts, sys.stdout)' || { echo "cli.py change not committed"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'work tree not clean:\n%s\n' "$status"
    exit 1
fi
