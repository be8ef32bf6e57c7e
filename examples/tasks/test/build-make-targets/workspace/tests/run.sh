#!/bin/bash
# Runs ./tconv on known conversions; exits non-zero if any is wrong.
cd "$(dirname "$0")/.."
passed=0
failed=0
expect() {
    local got
    got="$(./tconv "$1" "$2")"
    if [ "$got" = "$3" ]; then
        passed=$((passed + 1))
    else
        echo "FAIL: tconv $1 $2: expected '$3', got '$got'"
        failed=$((failed + 1))
    fi
}
expect 100 C "212.0 F"
expect 0 C "32.0 F"
expect -40 C "-40.0 F"
expect 98.6 F "37.0 C"
expect 32 F "0.0 C"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
