# Hidden check of go-lap-times: the report for the pristine laps.txt, and for
# other files where the fastest lap is the first one or a tie.
set -euo pipefail
fail() { printf 'for %s expected:\n%s\ngot:\n%s\n' "$1" "$2" "$3"; exit 1; }
bin="$(mktemp)"
other="$(mktemp)"
trap 'rm -f "$bin" "$other"' EXIT
go build -o "$bin" .

expected="$(printf 'lap 1: 1:23\nlap 2: 0:58\nlap 3: 2:05\nlap 4: 1:01\ntotal: 5:27\nfastest: lap 2 (0:58)')"
actual="$(go run .)"
[ "$actual" = "$expected" ] || fail laps.txt "$expected" "$actual"
actual="$("$bin" "$TASK_DIR/workspace/laps.txt")"
[ "$actual" = "$expected" ] || fail "the pristine laps.txt" "$expected" "$actual"

printf '45s\n1m\n50s\n' >"$other"
expected="$(printf 'lap 1: 0:45\nlap 2: 1:00\nlap 3: 0:50\ntotal: 2:35\nfastest: lap 1 (0:45)')"
actual="$("$bin" "$other")"
[ "$actual" = "$expected" ] || fail "laps 45s, 1m, 50s" "$expected" "$actual"

printf '1m10s\n1m5s\n1m5s\n1m20s\n' >"$other"
expected="$(printf 'lap 1: 1:10\nlap 2: 1:05\nlap 3: 1:05\nlap 4: 1:20\ntotal: 4:40\nfastest: lap 2 (1:05)')"
actual="$("$bin" "$other")"
[ "$actual" = "$expected" ] || fail "laps with a tie" "$expected" "$actual"
