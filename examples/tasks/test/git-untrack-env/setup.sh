# Setup of git-untrack-env: the user's identity (the .env file is already
# tracked: it is part of the first commit).
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
git ls-files --error-unmatch .env >/dev/null
