#!/bin/bash
# Prints how many expenses a file lists and their total.
# Each line is: DATE CATEGORY AMOUNT (whole euros); lines starting with # are comments.
# Usage: total.sh [FILE]   (default: expenses.txt)

file="${1:-expenses.txt}"
count=0
total=0
while read -r date category amount; do
    case "$date" in
        '#'* | '') continue ;;
    esac
    count=$((count + 1))
    total=$((total + amount))
done <"$file"
echo "$count expenses, total $total"
