# Hidden check of env-crlf-scripts: package.sh and scripts/lib.sh are the
# pristine scripts (LF endings, nothing else changed), package.sh is still
# executable, `./package.sh` builds dist/app-1.4.2.tar.gz, and .gitattributes
# makes git check out every *.sh with LF endings.
set -euo pipefail
pristine="$TASK_DIR/workspace"
for f in package.sh scripts/lib.sh; do
    if grep -q $'\r' "$f"; then
        echo "$f still has CRLF line endings"
        exit 1
    fi
    cmp -s "$pristine/$f" "$f" || { echo "$f was changed beyond its line endings:"; diff "$pristine/$f" "$f" || true; exit 1; }
done
test -x package.sh || { echo "package.sh is no longer executable"; exit 1; }
rm -rf dist
out="$(./package.sh 2>&1)" || { printf './package.sh failed:\n%s\n' "$out"; exit 1; }
test "$out" = "[package] built dist/app-1.4.2.tar.gz (4 files)" || { printf './package.sh printed:\n%s\n' "$out"; exit 1; }
test "$(tar -tzf dist/app-1.4.2.tar.gz | grep -v '/$' | sort | tr '\n' ' ')" = "VERSION src/app.py src/greet.py src/settings.ini " || { echo "dist/app-1.4.2.tar.gz does not hold VERSION and src/"; exit 1; }
rm -rf dist
for path in package.sh scripts/lib.sh tools/new-script.sh; do
    eol="$(git check-attr eol -- "$path" | sed 's/.*: eol: //')"
    test "$eol" = lf || { echo "git's eol attribute for $path is '$eol', not lf: .gitattributes should make every *.sh LF"; exit 1; }
done
