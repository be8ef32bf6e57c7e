# Hidden check of git-move-commit-to-branch: "Add CSV export" is the only
# commit of a new branch csv-export on top of main, main is back at "Add
# monthly totals to the report", and the user is on main with a clean tree.
set -euo pipefail
git rev-parse -q --verify refs/heads/csv-export >/dev/null || { echo "no branch csv-export"; exit 1; }
test "$(git log -1 --format=%s main)" = "Add monthly totals to the report" || { echo "main is not back at 'Add monthly totals to the report' (it is at '$(git log -1 --format=%s main)')"; exit 1; }
test "$(git rev-list --count main)" = 2 || { echo "main's history changed"; exit 1; }
test "$(git log -1 --format=%s csv-export)" = "Add CSV export" || { echo "csv-export does not end with 'Add CSV export'"; exit 1; }
test "$(git rev-parse csv-export^)" = "$(git rev-parse main)" || { echo "csv-export is not one commit on top of main"; exit 1; }
test "$(git diff --name-only main csv-export | sort | tr '\n' ' ')" = "README.md export_csv.py " || { echo "the commit on csv-export does not hold the CSV export change"; exit 1; }
git show csv-export:export_csv.py | grep -q 'def export(orders, out)' || { echo "export_csv.py on csv-export lost its content"; exit 1; }
git show csv-export:README.md | grep -q 'export_csv.py orders.csv' || { echo "README.md on csv-export lost its change"; exit 1; }
! git cat-file -e main:export_csv.py 2>/dev/null || { echo "export_csv.py is still on main"; exit 1; }
git show main:report.py | grep -q 'def by_month' || { echo "main lost the monthly totals"; exit 1; }
test "$(git symbolic-ref -q HEAD || true)" = refs/heads/main || { echo "not on branch main"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'the working tree is not clean:\n%s\n' "$status"
    exit 1
fi
