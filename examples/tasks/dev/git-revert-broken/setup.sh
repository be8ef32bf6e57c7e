# Setup of git-revert-broken: two more commits, a good one (a docstring and
# a README) and, last, one that breaks the discount test.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
cat >README.md <<'MD'
# prices

Order totals with tax and discounts. Run the tests with `python3 -m unittest`.
MD
git add README.md
git commit -q -m 'Add a README'
python3 - <<'PY'
path = "prices.py"
src = open(path).read()
src = src.replace(
    "    amount = subtotal(items) * (1 - discount)\n",
    "    amount = subtotal(items) - discount\n",
)
open(path, "w").write(src)
PY
git add prices.py
git commit -q -m 'Simplify the discount in total'
! python3 -m unittest -q >/dev/null 2>&1
