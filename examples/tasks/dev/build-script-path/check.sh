# Hidden check of build-script-path: ./build.sh builds build/calc from a
# clean tree, and it computes.
set -euo pipefail
rm -rf build
./build.sh
test "$(build/calc mul 6 7)" = 42
test "$(build/calc sub 10 25)" = -15
test "$(build/calc div 17 5)" = 3
! build/calc div 1 0 2>/dev/null
