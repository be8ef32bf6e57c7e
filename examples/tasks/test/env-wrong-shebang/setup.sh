# Setup of env-wrong-shebang: tally.sh is executable (whatever the modes of
# the task's files), so its first line is what goes wrong.
set -euo pipefail
chmod +x tally.sh
