#!/bin/bash
# Checks every .conf file under a directory (default: conf.d): each needs a
# name= line and a numeric port= line. Prints one ERROR line per problem and
# a summary, and exits with status 1 if there was any problem.

dir="${1:-conf.d}"
checked=0
errors=0
find "$dir" -name '*.conf' | sort | while read -r file; do
    checked=$((checked + 1))
    if ! grep -q '^name=' "$file"; then
        echo "ERROR $file: missing name"
        errors=$((errors + 1))
    fi
    if ! grep -Eq '^port=[0-9]+$' "$file"; then
        echo "ERROR $file: missing or bad port"
        errors=$((errors + 1))
    fi
done
echo "$checked files checked, $errors errors"
if [ "$errors" -gt 0 ]; then
    exit 1
fi
