# Setup of env-venv-requirements: the virtualenv exists but the dev
# requirements were never installed into it.
set -euo pipefail
python3 -m venv .venv
! .venv/bin/python -c 'import pytest' 2>/dev/null
