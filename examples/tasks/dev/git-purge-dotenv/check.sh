# Hidden check of git-purge-dotenv: still two commits, the last one with its
# message, settings.py and README.md changes, .gitignore ignoring .env, and
# no .env in any commit reachable from a ref; the local .env is intact and
# the work tree clean.
set -euo pipefail
test "$(git rev-list --count HEAD)" = 2 || { echo "expected the two commits, amended, found $(git rev-list --count HEAD)"; exit 1; }
test "$(git log -1 --format=%B HEAD | sed -e '/^$/d')" = "Read mail settings from .env" || { echo "the last commit's message changed: $(git log -1 --format=%s)"; exit 1; }
for commit in $(git rev-list --all); do
    if git cat-file -e "$commit:.env" 2>/dev/null; then
        echo ".env is still in commit $(git log -1 --format='%h %s' "$commit")"
        exit 1
    fi
done
git show HEAD:settings.py | grep -q 'def load(path=".env")' || { echo "the settings.py change is no longer in the commit"; exit 1; }
git show HEAD:README.md | grep -q 'it is never' || { echo "the README.md change is no longer in the commit"; exit 1; }
git show HEAD:.gitignore | grep -q '__pycache__/' || { echo ".gitignore lost its old lines"; exit 1; }
test "$(git diff --name-only HEAD~1 HEAD | sort | tr '\n' ' ')" = ".gitignore README.md settings.py " || { echo "the commit should change .gitignore, README.md and settings.py, it changes: $(git diff --name-only HEAD~1 HEAD | tr '\n' ' ')"; exit 1; }
git check-ignore -q --no-index .env || { echo ".gitignore does not ignore .env"; exit 1; }
grep -qx 'SMTP_PASSWORD=Tr0ub4dor&3-nightly' .env || { echo "the local .env is gone or changed"; exit 1; }
test "$(wc -l <.env)" = 6 || { echo "the local .env changed"; exit 1; }
status="$(git status --porcelain --untracked-files=all | grep -v '^?? \.rebound/' || true)"
if [ -n "$status" ]; then
    printf 'the work tree is not clean:\n%s\n' "$status"
    exit 1
fi
