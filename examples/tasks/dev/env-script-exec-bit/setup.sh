# Setup of env-script-exec-bit: make sure the modes are as committed (the
# runner and two steps executable, the other two steps not), whatever the
# checkout did to them.
set -euo pipefail
chmod +x run.sh steps/10-clean.sh steps/40-checksum.sh
chmod -x steps/20-render.sh steps/30-index.py
