# Setup of git-revert-older-commit: three commits on main after the first:
# "Switch dates to US format" (the one to revert), then two good ones that
# touch the same files elsewhere.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
git branch -M main
sed -i 's|^DATE_FORMAT = "%Y-%m-%d"$|DATE_FORMAT = "%m/%d/%Y"|' invoice.py
sed -i 's|"Date: 2024-05-03")$|"Date: 05/03/2024")|' test_invoice.py
python3 -m unittest -q 2>/dev/null
git commit -q -am 'Switch dates to US format'
python3 - <<'PY'
path = "invoice.py"
src = open(path).read()
src = src.replace('''def header(number, date):
    """The invoice's first lines: the shop, the number and the date."""
    return [
        SHOP,
''', '''VAT_NUMBER = "GB 123 4567 89"


def header(number, date):
    """The invoice's first lines: the shop, its VAT number, the number and
    the date."""
    return [
        SHOP,
        f"VAT no. {VAT_NUMBER}",
''')
open(path, "w").write(src)
path = "test_invoice.py"
src = open(path).read()
src = src.replace('''    def test_total(self):''', '''    def test_header_vat(self):
        self.assertIn("VAT no. GB 123 4567 89", header("7", datetime.date(2024, 5, 3)))

    def test_total(self):''')
open(path, "w").write(src)
PY
python3 -m unittest -q 2>/dev/null
git commit -q -am 'Add VAT number to the invoice header'
cat >>README.md <<'MD'

The header shows the shop's VAT number (`VAT_NUMBER` in invoice.py).
MD
git commit -q -am 'Update README'
rm -rf __pycache__
