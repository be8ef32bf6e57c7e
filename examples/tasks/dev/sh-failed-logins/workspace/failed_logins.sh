#!/bin/bash
# Failed SSH password logins per user name in an auth.log, most attempts
# first (equal counts by name), one `user count` line each.
#
# Usage: bash failed_logins.sh auth.log
set -euo pipefail

log="${1:-auth.log}"

grep 'sshd\[[0-9]*\]: Failed password for ' "$log" \
    | sed -E 's/.*Failed password for ([^ ]+) .*/\1/' \
    | uniq -c \
    | sort -k1,1nr -k2,2 \
    | awk '{ print $2, $1 }'
