# Setup of git-cherry-pick-fix: a branch feature/discounts with three
# commits, the middle one a rounding fix by Sam that main needs; main has
# moved on by one commit since the branch started.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
git branch -M main
git checkout -q -b feature/discounts
cat >discounts.py <<'PY'
"""Discount codes: a code takes a percentage off an order."""

CODES = {"SPRING10": 10, "STAFF25": 25}


def apply_code(cents, code):
    """`cents` less the discount of `code` (unknown codes take nothing off)."""
    percent = CODES.get(code.upper(), 0)
    return cents - cents * percent // 100
PY
git add discounts.py
git commit -q -m 'Add discount codes'
sed -i 's/    return int(amount \* 100)/    return round(amount * 100)/' money.py
python3 - <<'PY'
path = "test_money.py"
src = open(path).read()
src = src.replace(
    "    def test_total(self):",
    "    def test_no_float_truncation(self):\n"
    "        self.assertEqual(to_cents(19.99), 1999)\n"
    "        self.assertEqual(total_cents([4.35, 0.10]), 445)\n"
    "\n"
    "    def test_total(self):",
)
open(path, "w").write(src)
PY
python3 -m unittest -q 2>/dev/null
git add money.py test_money.py
git -c user.name=Sam -c user.email=sam@localhost commit -q -m 'Fix rounding of totals to cents' -m 'int() truncated 19.99 * 100 = 1998.9999... to 1998.'
cat >>discounts.py <<'PY'


def stack(cents, codes):
    # WIP: should codes stack or only the best one count?
    for code in codes:
        cents = apply_code(cents, code)
    return cents
PY
git commit -q -am 'WIP: stack several discount codes'
git checkout -q main
cat >>README.md <<'MD'

Prices are floats in euros; totals are kept as whole cents and shown with
two decimals by `format_cents`.
MD
git commit -q -am 'Document the price format'
