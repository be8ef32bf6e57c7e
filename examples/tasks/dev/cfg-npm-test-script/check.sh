# Hidden check of cfg-npm-test-script: the package's test script (run with
# `npm test`, or as npm would run it where npm is missing) runs all 9 tests
# in test/, once each, and they pass.
set -euo pipefail
script="$(node -e 'const s = require("./package.json").scripts || {}; process.stdout.write(s.test || "")')" \
    || { echo "package.json cannot be read"; exit 1; }
test -n "$script" || { echo "package.json has no test script"; exit 1; }
if command -v npm >/dev/null; then
    out="$(npm_config_update_notifier=false npm test 2>&1)" || { printf '%s\n' "$out" | tail -n 20; echo "npm test failed"; exit 1; }
else
    out="$(PATH="$PWD/node_modules/.bin:$PATH" sh -c "$script" 2>&1)" || { printf '%s\n' "$out" | tail -n 20; echo "the test script failed"; exit 1; }
fi
printf '%s\n' "$out" | tail -n 12
printf '%s\n' "$out" | grep -Eq '^(# |ℹ )pass 9$' || { echo "expected the 9 tests of test/ to run and pass"; exit 1; }
printf '%s\n' "$out" | grep -Eq '^(# |ℹ )fail 0$' || { echo "some tests failed"; exit 1; }
