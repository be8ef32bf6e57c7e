# Hidden check of rs-top-words: `cargo run` prints the top three words of
# words.txt, by count descending, ties alphabetical.
set -euo pipefail
expected="$(printf 'the: 8\nand: 4\nfox: 4')"
actual="$(cargo run --quiet --offline)"
if [ "$actual" != "$expected" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
