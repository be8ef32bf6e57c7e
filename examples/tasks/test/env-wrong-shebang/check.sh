# Hidden check of env-wrong-shebang: ./tally.sh votes.txt runs directly and
# prints the tally.
set -euo pipefail
expected='bob: 3
carol: 3
alice: 2
dave: 1
erin: 1'
actual="$(./tally.sh votes.txt)"
if [ "$actual" != "$expected" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
