# Hidden check of build-makefile-object: make builds ./wordstat from a clean
# tree, and it counts sample.txt right.
set -euo pipefail
rm -f -- *.o wordstat
make
expected='lines: 3
words: 18
longest word: 7'
actual="$(./wordstat sample.txt)"
if [ "$actual" != "$expected" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
