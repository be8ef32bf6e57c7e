# Stop at the first failing command.
sed -i 's/^# generates dist\/index.html. Used by CI, which relies on the exit status.$/&\nset -euo pipefail/' build.sh
grep -q '^set -euo pipefail$' build.sh
