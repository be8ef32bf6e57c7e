# Setup of env-venv-declare-dependency: the project's virtualenv (it sees
# the system's site-packages: PyYAML and pytest), without the slugify
# module that blog/posts.py imports and pyproject.toml doesn't declare.
set -euo pipefail
python3 -m venv --system-site-packages .venv
! .venv/bin/python -c 'import slugify' 2>/dev/null
.venv/bin/python -c 'import yaml, pytest'
