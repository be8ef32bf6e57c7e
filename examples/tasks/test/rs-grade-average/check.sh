# Hidden check of rs-grade-average: the crate builds and all 4 tests pass.
set -euo pipefail
out="$(cargo test --quiet --offline --test grades 2>&1)" || { printf '%s\n' "$out"; exit 1; }
printf '%s\n' "$out"
grep -q '^test result: ok\. 4 passed; 0 failed' <<<"$out"
