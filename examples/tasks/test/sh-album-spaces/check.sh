# Hidden check of sh-album-spaces: one "album: count" line per album, for
# photos/, for a pristine copy of it under a path with spaces, and for
# album names with two spaces in a row.
set -euo pipefail
fail() { printf 'for %s expected:\n%s\ngot:\n%s\n' "$1" "$2" "$3"; exit 1; }
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT

expected="$(printf 'Birthday: 3\nMisc: 0\nSummer 2023: 4\nTrip to Rome: 2')"
actual="$(bash count-photos.sh)"
[ "$actual" = "$expected" ] || fail photos/ "$expected" "$actual"

cp -a "$TASK_DIR/workspace/photos" "$root/My Photos"
actual="$(bash count-photos.sh "$root/My Photos")"
[ "$actual" = "$expected" ] || fail "a copy in \"My Photos\"" "$expected" "$actual"

mkdir -p "$root/more/New  Year" "$root/more/Zoo"
touch "$root/more/New  Year/fireworks.jpg" "$root/more/Zoo/lion.jpg" "$root/more/Zoo/seal pup.jpg"
expected="$(printf 'New  Year: 1\nZoo: 2')"
actual="$(bash count-photos.sh "$root/more")"
[ "$actual" = "$expected" ] || fail "albums \"New  Year\" and Zoo" "$expected" "$actual"
