# Hidden check of build-make-targets: `make test` builds tconv and runs
# tests/run.sh; `make clean` removes tconv and the object files (and does
# not fail when there is nothing to remove).
set -euo pipefail
make clean
test ! -e tconv || { echo "make clean left tconv"; exit 1; }
test -z "$(find . -name '*.o' -not -path './.git/*')" || { echo "make clean left object files"; exit 1; }
make clean
out="$(make test)" || { printf '%s\n' "$out"; echo "make test failed"; exit 1; }
printf '%s\n' "$out"
grep -qx '5 passed, 0 failed' <<<"$out" || { echo "make test did not run tests/run.sh"; exit 1; }
test -x tconv
make clean
test ! -e tconv && test ! -e main.o && test ! -e convert.o || { echo "make clean left build output"; exit 1; }
# The test target fails when the tests fail.
cp -p tests/run.sh tests/run.sh.saved
printf '#!/bin/sh\necho "0 passed, 1 failed"\nexit 1\n' >tests/run.sh
if make test >/dev/null 2>&1; then status=passed; else status=failed; fi
mv tests/run.sh.saved tests/run.sh
make clean
test "$status" = failed || { echo "make test succeeds even though the tests fail"; exit 1; }
