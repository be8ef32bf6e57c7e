# Setup of env-venv-missing-dependency: the project's virtualenv (which
# sees the system's site-packages, PyYAML among them), without tabulate,
# which disk_report.py needs and requirements.txt doesn't list.
set -euo pipefail
python3 -m venv --system-site-packages .venv
! .venv/bin/python -c 'import tabulate' 2>/dev/null
.venv/bin/python -c 'import yaml'
