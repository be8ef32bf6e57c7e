# Hidden check of env-script-exec-bit: run.sh and the steps are unchanged,
# ./run.sh exits 0, and dist/ has a page per content/*.txt, the index linking
# them all, and valid checksums of every page.
set -euo pipefail
pristine="$TASK_DIR/workspace"
for file in run.sh "$pristine"/steps/*; do
    rel="${file#"$pristine"/}"
    if ! cmp -s "$pristine/$rel" "$rel"; then
        echo "$rel was changed or removed; only its permissions needed fixing"
        exit 1
    fi
done
if [ "$(ls steps)" != "$(ls "$pristine/steps")" ]; then
    echo "the steps in steps/ are not the original ones: $(ls steps | tr '\n' ' ')"
    exit 1
fi
rm -rf dist
if ! ./run.sh; then
    echo "./run.sh failed"
    exit 1
fi
pages=""
for src in content/*.txt; do
    name="$(basename "$src" .txt)"
    title="$(head -n 1 "$src")"
    pages="$pages$name.html "
    grep -qF "<h1>$title</h1>" "dist/$name.html" || { echo "dist/$name.html is missing or wrong"; exit 1; }
    grep -qF "<a href=\"$name.html\">$title</a>" dist/index.html || { echo "dist/index.html does not link $name.html"; exit 1; }
done
listed="$(awk '{ printf "%s ", $2 }' dist/SHA256SUMS)"
if [ "$listed" != "${pages}index.html " ]; then
    echo "dist/SHA256SUMS lists: $listed"
    exit 1
fi
(cd dist && sha256sum --quiet -c SHA256SUMS) || { echo "dist/SHA256SUMS does not verify"; exit 1; }
