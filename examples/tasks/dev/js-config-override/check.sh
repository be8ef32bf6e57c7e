# Hidden check of js-config-override: settings from the file override the
# defaults, for the pristine settings.json and for a second settings file.
set -euo pipefail
fail() { printf 'for %s expected:\n%s\ngot:\n%s\n' "$1" "$2" "$3"; exit 1; }

expected="$(printf 'debug=true\nhost=127.0.0.1\nlogLevel=warn\nmaxUploadMb=10\nport=8080')"
actual="$(node show-config.js "$TASK_DIR/workspace/settings.json")"
[ "$actual" = "$expected" ] || fail settings.json "$expected" "$actual"

other="$(mktemp)"
trap 'rm -f "$other"' EXIT
printf '{"host": "0.0.0.0", "maxUploadMb": 50}\n' >"$other"
expected="$(printf 'debug=false\nhost=0.0.0.0\nlogLevel=info\nmaxUploadMb=50\nport=3000')"
actual="$(node show-config.js "$other")"
[ "$actual" = "$expected" ] || fail "a second settings file" "$expected" "$actual"

# With no argument it reads settings.json next to config.js.
expected="$(printf 'debug=true\nhost=127.0.0.1\nlogLevel=warn\nmaxUploadMb=10\nport=8080')"
actual="$(node show-config.js)"
[ "$actual" = "$expected" ] || fail "no argument" "$expected" "$actual"
