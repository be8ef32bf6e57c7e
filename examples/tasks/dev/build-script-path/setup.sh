# Setup of build-script-path: build.sh is executable whatever the modes of
# the task's files.
set -euo pipefail
chmod +x build.sh
