# Hidden check of c-choir-attendance: ./attendance counts who is present per
# voice part, for the pristine register.csv and for a second register.
set -euo pipefail
fail() { printf 'for %s expected:\n%s\ngot:\n%s\n' "$1" "$2" "$3"; exit 1; }
make -B >/dev/null
other="$(mktemp)"
trap 'rm -f "$other"' EXIT

expected="$(printf 'soprano: 3 of 4 present\nalto: 2 of 3 present\ntenor: 1 of 2 present\nbass: 3 of 3 present')"
actual="$(./attendance register.csv 2>&1)" || true
[ "$actual" = "$expected" ] || fail register.csv "$expected" "$actual"
actual="$(./attendance "$TASK_DIR/workspace/register.csv" 2>&1)" || true
[ "$actual" = "$expected" ] || fail "the pristine register.csv" "$expected" "$actual"

cat >"$other" <<'CSV'
baritone,Otto Meier,present
mezzo,Rosa Kunz,absent
baritone,Paul Egli,absent
mezzo,Sara Blum,present
countertenor,Tim Ochs,excused
mezzo,Ursula Frey,present
baritone,Viktor Zahn,present
mezzo,Wanda Stoll,present
countertenor,Xaver Imhof,present
CSV
expected="$(printf 'baritone: 2 of 3 present\nmezzo: 3 of 4 present\ncountertenor: 1 of 2 present')"
actual="$(./attendance "$other" 2>&1)" || true
[ "$actual" = "$expected" ] || fail "a second register" "$expected" "$actual"
