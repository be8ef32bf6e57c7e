# Setup of git-squash-last-two: a README commit, then the two commits to
# squash: the --due option (with a typo in its help) and the typo fix.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
git branch -M main
python3 "$TASK_DIR/edits.py" readme
git add README.md
git commit -q -m 'Add a README'
python3 "$TASK_DIR/edits.py" due
git commit -q -am 'Add --due option'
python3 "$TASK_DIR/edits.py" typo
git commit -q -am 'fix typo in --due help'
