# Hidden check of build-makefile-generated-header: make builds ./tempconv
# from a clean tree (version.h generated first), and after VERSION changes
# a plain make rebuilds it to report the new version.
set -euo pipefail
saved="$(cat VERSION)"
trap 'printf "%s\n" "$saved" >VERSION' EXIT
rm -f -- *.o tempconv version.h
make || { echo "make fails from a clean tree"; exit 1; }
test "$(./tempconv --version)" = "tempconv 2.3.1" || { echo "tempconv --version: expected 'tempconv 2.3.1', got '$(./tempconv --version)'"; exit 1; }
test "$(./tempconv 100C)" = "212.0F" || { echo "tempconv 100C is wrong"; exit 1; }
test "$(./tempconv 451F)" = "232.8C" || { echo "tempconv 451F is wrong"; exit 1; }
# Make everything built look old, then bump the version.
find . -path ./.git -prune -o -path ./.rebound -prune -o -newer VERSION -type f -exec touch -d '-1 minute' {} + 
touch -d '-1 minute' -- *.o tempconv version.h
printf '9.9.9\n' >VERSION
make || { echo "make fails after VERSION changed"; exit 1; }
test "$(./tempconv --version)" = "tempconv 9.9.9" || { echo "after VERSION changed to 9.9.9, make left tempconv reporting '$(./tempconv --version)'"; exit 1; }
