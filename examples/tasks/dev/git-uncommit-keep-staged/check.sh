# Hidden check of git-uncommit-keep-staged: HEAD is back at "Show the order
# date on invoices" (two commits), the VAT commit's changes (invoice.py,
# new vat.py) are staged and nothing else is, and the README.md edit is
# still an unstaged change.
set -euo pipefail
test "$(git log -1 --format=%s HEAD)" = "Show the order date on invoices" || { echo "HEAD is at '$(git log -1 --format=%s HEAD)', not at 'Show the order date on invoices'"; exit 1; }
test "$(git rev-list --count HEAD)" = 2 || { echo "the history before the VAT commit changed"; exit 1; }
staged="$(git diff --cached --name-status | sort | tr '\t\n' ' ;')"
test "$staged" = "A vat.py;M invoice.py;" || { echo "staged changes should be exactly the VAT commit's (A vat.py, M invoice.py), got: $staged"; exit 1; }
git show :invoice.py | grep -q 'from vat import vat' || { echo "the staged invoice.py lost the VAT change"; exit 1; }
git show :invoice.py | grep -q "f\"{'VAT':<26} {tax:>8.2f}\"" || { echo "the staged invoice.py lost the VAT line"; exit 1; }
git show :vat.py | grep -q '"food": 0.07' || { echo "the staged vat.py is not the committed one"; exit 1; }
unstaged="$(git diff --name-only)"
test "$unstaged" = "README.md" || { echo "expected README.md as the only unstaged change, got: $unstaged"; exit 1; }
grep -q 'Amounts include VAT' README.md || { echo "the README.md edit is lost"; exit 1; }
untracked="$(git status --porcelain --untracked-files=all | grep '^??' | grep -v '^?? \.rebound/' || true)"
test -z "$untracked" || { echo "unexpected untracked files: $untracked"; exit 1; }
