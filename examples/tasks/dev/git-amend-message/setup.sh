# Setup of git-amend-message: a commit with a typo in its message.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
sed -i 's/    start = number \* size/    start = (number - 1) * size/' pager.py
git commit -q -am 'Fix paginaton offest'
