# Setup of git-tag-release: v1.1.0 (annotated) on the first commit, then two
# commits that make release 1.2.0.
set -euo pipefail
git config user.name "Dev"
git config user.email "dev@localhost"
git tag -a v1.1.0 -m 'Release 1.1.0'
sed -i 's/^set -euo pipefail$/&\numask 077/' backup.sh
git commit -q -am 'Keep backups private to the user'
printf '1.2.0\n' >VERSION
sed -i 's/^# Changelog$/&\n\n## 1.2.0\n\n- Backups are readable by their owner only./' CHANGELOG.md
git commit -q -am 'Bump version to 1.2.0'
