# Setup of git-restore-deleted-file: the rates change, then a cleanup commit
# that deletes two obsolete files and, by mistake, config/rates.json; then
# one more commit after it.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
git branch -M main
cat >config/rates.json <<'JSON'
{
  "domestic": {"base": 4.90, "per_kg": 0.80},
  "eu": {"base": 9.50, "per_kg": 1.60},
  "express": {"base": 24.00, "per_kg": 2.10},
  "world": {"base": 18.00, "per_kg": 4.20}
}
JSON
sed -i 's/^        self.assertEqual(cost("eu", 2.5), 13.50)$/&\n\n    def test_express(self):\n        self.assertEqual(cost("express", 2), 28.20)/' test_shipping.py
python3 -m unittest -q 2>/dev/null
git commit -q -am 'Add the express zone'
git rm -q docs/old-rates.md scripts/import_rates.py config/rates.json
git commit -q -m 'Clean up unused files'
sed -i 's/^    python3 shipping.py eu 2.5$/&\n\nThe zones and their prices are in `config\/rates.json`./' README.md
git commit -q -am 'Say where the rates are in the README'
! python3 -m unittest -q >/dev/null 2>&1
