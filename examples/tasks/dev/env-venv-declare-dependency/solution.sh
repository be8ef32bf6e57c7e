# The module slugify comes from the distribution python-slugify.
sed -i 's/^    "PyYAML>=5.4",$/&\n    "python-slugify>=5",/' pyproject.toml
.venv/bin/pip install -q 'python-slugify>=5'
