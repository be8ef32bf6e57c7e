# Hidden check of data-greet-script: `bash greet.sh` prints `Hello, NAME!`
# for each non-blank line of names.txt (trimmed), for the task's pristine
# names.txt and for another list.
set -uo pipefail
test -f greet.sh || { echo "greet.sh is missing"; exit 1; }
expect() {  # names file -> expected output
    sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' "$1" | grep -v '^$' | sed 's/.*/Hello, &!/'
}
want="$(expect "$TASK_DIR/workspace/names.txt")"
got="$(bash greet.sh)"
if [ "$got" != "$want" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$want" "$got"
    exit 1
fi
# The script must read names.txt, not print a fixed text.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp greet.sh "$tmp/"
printf 'Zoe\n\n  Omar Farouk\n' >"$tmp/names.txt"
got="$(cd "$tmp" && bash greet.sh)"
if [ "$got" != "$(expect "$tmp/names.txt")" ]; then
    printf 'with names.txt = Zoe, Omar Farouk, greet.sh printed:\n%s\n' "$got"
    exit 1
fi
