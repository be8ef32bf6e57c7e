#!/bin/bash
# Adds up the hours each person worked, from a timesheet.
# Each line is: NAME DATE START END, with times as HH:MM (24-hour clock, a
# shift ends on the day it starts); lines starting with # are comments.
# Usage: hours.sh [FILE]   (default: timesheet.txt)
# Prints one line per person, in order of first appearance: NAME HOURShMINUTES

file="${1:-timesheet.txt}"
declare -A worked
order=()

# to_minutes HH:MM prints the minutes since midnight.
to_minutes() {
    local h=${1%%:*} m=${1##*:}
    echo $((h * 60 + m))
}

while read -r name date start end; do
    case "$name" in
        '#'* | '') continue ;;
    esac
    from=$(to_minutes "$start")
    to=$(to_minutes "$end")
    if [ -z "${worked[$name]+set}" ]; then
        order+=("$name")
        worked[$name]=0
    fi
    worked[$name]=$((worked[$name] + to - from))
done <"$file"

for name in "${order[@]}"; do
    total=${worked[$name]}
    printf '%s %dh%02d\n' "$name" $((total / 60)) $((total % 60))
done
