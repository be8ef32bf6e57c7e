# Setup of env-venv-pytest: the project's virtualenv, made without pytest.
set -euo pipefail
python3 -m venv .venv
! .venv/bin/python -c 'import pytest' 2>/dev/null
