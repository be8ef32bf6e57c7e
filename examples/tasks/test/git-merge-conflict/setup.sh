# Setup of git-merge-conflict: main and branch docs-update both add an entry
# at the same place in CHANGELOG.md; the branch also changes README.md. The
# merge of docs-update into main is left stopped on the conflict.
set -euo pipefail
git branch -M main
git config user.name "Dev"
git config user.email "dev@localhost"
git switch -q -c docs-update
sed -i 's/^- Add `--verbose` flag to the sync command.$/&\n- Document the `pull` command in the README./' CHANGELOG.md
cat >>README.md <<'MD'
    filesync pull ./photos
MD
git commit -q -am 'Document pull'
git switch -q main
sed -i 's/^- Add `--verbose` flag to the sync command.$/&\n- Fix a crash when the remote folder is empty./' CHANGELOG.md
git commit -q -am 'Fix crash on empty remote'
if git merge docs-update >/dev/null 2>&1; then
    echo "the merge should have stopped on a conflict" >&2
    exit 1
fi
test -f .git/MERGE_HEAD
grep -q '^<<<<<<<' CHANGELOG.md
