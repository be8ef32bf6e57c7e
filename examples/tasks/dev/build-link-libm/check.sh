# Hidden check of build-link-libm: make builds ./spread from a clean tree,
# and it prints the right statistics of numbers.txt.
set -euo pipefail
rm -f -- *.o spread
make
expected='count: 8
mean: 5.000
stddev: 2.000
rms: 5.385'
actual="$(./spread <numbers.txt)"
if [ "$actual" != "$expected" ]; then
    printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
