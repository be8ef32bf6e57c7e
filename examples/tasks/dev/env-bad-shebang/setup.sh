# Setup of env-bad-shebang: the tool is executable, as committed, whatever
# the checkout did to the mode.
set -euo pipefail
chmod +x tools/csv2md.py
