# Hidden check of sh-build-set-e: the agent's build.sh, run on fresh copies
# of the pristine project, succeeds on a good one and stops with a non-zero
# status, without "build ok", when a step fails.
set -uo pipefail
script="$PWD/build.sh"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT

fresh() {
    rm -rf "$root/p"
    cp -a "$TASK_DIR/workspace/." "$root/p"
    cp "$script" "$root/p/build.sh"
}

fresh
out="$(cd "$root/p" && bash build.sh 2>&1)"
status=$?
if [ "$status" -ne 0 ] || [ "$(tail -n 1 <<<"$out")" != "build ok" ]; then
    printf 'a good build failed (status %s):\n%s\n' "$status" "$out"
    exit 1
fi
for f in about.html menu.html index.html assets/site.css; do
    test -f "$root/p/dist/$f" || { echo "a good build did not produce dist/$f"; exit 1; }
done
grep -q 'href="menu.html"' "$root/p/dist/index.html" || { echo "dist/index.html is incomplete"; exit 1; }

expect_failure() {
    local what="$1" out status
    out="$(cd "$root/p" && bash build.sh 2>&1)"
    status=$?
    if [ "$status" -eq 0 ]; then
        printf 'with %s, build.sh exited 0:\n%s\n' "$what" "$out"
        exit 1
    fi
    if grep -q 'build ok' <<<"$out"; then
        printf 'with %s, build.sh still printed "build ok":\n%s\n' "$what" "$out"
        exit 1
    fi
}

fresh
rm -rf "$root/p/assets"
expect_failure "no assets/ directory"

fresh
printf '<!doctype html>\n<p>untitled</p>\n' >"$root/p/pages/draft.html"
expect_failure "a page without a <title>"

fresh
rm -f "$root/p/pages/"*.html
expect_failure "no pages"
