sed -i 's/return "-".join(words)/return "-".join(words).lower()/' slug.py
