# Hidden check of c-compile-error: it builds, and prints the right numbers.
set -eu
make
test "$(./stats)" = "$(printf 'mean: 4.50\nmax: 9')"
