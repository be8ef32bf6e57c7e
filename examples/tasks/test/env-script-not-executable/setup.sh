# Setup of env-script-not-executable: neither script has its execute bit
# (whatever the modes of the task's files).
set -euo pipefail
chmod a-x run.sh tools/words.sh
