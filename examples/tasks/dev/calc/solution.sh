# subtract returned b - a.
sed -i 's/return b - a/return a - b/' calc.py
