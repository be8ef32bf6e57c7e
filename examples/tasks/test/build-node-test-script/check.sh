# Hidden check of build-node-test-script: the command of package.json's
# "test" script (run as npm would, minus npm) runs all 7 tests of test/ with
# node's built-in runner, and they pass.
set -euo pipefail
cmd="$(node -e 'const p = require("./package.json"); process.stdout.write((p.scripts && p.scripts.test) || "")')"
test -n "$cmd" || { echo "no test script in package.json"; exit 1; }
echo "test script: $cmd"
out="$(PATH="$PWD/node_modules/.bin:$PATH" bash -c "$cmd" 2>&1)" || { printf '%s\n' "$out"; echo "the test script failed"; exit 1; }
printf '%s\n' "$out"
# TAP (the default when not on a terminal) or the spec reporter.
grep -Eqx '(# |ℹ )tests 7' <<<"$out" || { echo "expected the 7 tests to run"; exit 1; }
grep -Eqx '(# |ℹ )pass 7' <<<"$out" || { echo "expected the 7 tests to pass"; exit 1; }
