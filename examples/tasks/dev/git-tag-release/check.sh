# Hidden check of git-tag-release: an annotated tag v1.2.0 on the current
# commit with the message 'Release 1.2.0'; v1.1.0 and the history untouched.
set -euo pipefail
git rev-parse -q --verify refs/tags/v1.2.0 >/dev/null || { echo "no tag v1.2.0"; exit 1; }
test "$(git cat-file -t refs/tags/v1.2.0)" = tag || { echo "v1.2.0 is not an annotated tag"; exit 1; }
test "$(git rev-parse 'v1.2.0^{commit}')" = "$(git rev-parse HEAD)" || { echo "v1.2.0 is not on the current commit"; exit 1; }
test "$(git log -1 --format=%s HEAD)" = "Bump version to 1.2.0" || { echo "the history changed"; exit 1; }
test "$(git rev-list --count HEAD)" = 3 || { echo "the history changed"; exit 1; }
test "$(git for-each-ref --format='%(contents)' refs/tags/v1.2.0 | sed -e '/^$/d')" = "Release 1.2.0" || { echo "wrong tag message"; exit 1; }
test "$(git rev-parse 'v1.1.0^{commit}')" = "$(git rev-parse HEAD~2)" || { echo "v1.1.0 moved"; exit 1; }
