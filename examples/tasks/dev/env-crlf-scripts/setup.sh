# Setup of env-crlf-scripts: the build scripts as they came from a Windows
# machine, committed with CRLF line endings; package.sh executable.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
git config core.autocrlf false
sed -i 's/$/\r/' package.sh scripts/lib.sh
chmod +x package.sh
git add package.sh scripts/lib.sh
git commit -q -m 'Update the build scripts from the shared drive'
! ./package.sh >/dev/null 2>&1
