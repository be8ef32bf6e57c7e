# Hidden check of sh-temperature-summary: tempstats.sh prints the right day
# count, min, max and average for the task's temps.csv, for a winter file of
# readings all below zero and for a mixed one.
set -euo pipefail
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
compare() {
    local actual
    actual="$(bash tempstats.sh "$1")"
    if [ "$actual" != "$2" ]; then
        printf 'for %s expected:\n%s\ngot:\n%s\n' "$3" "$2" "$actual"
        exit 1
    fi
}
compare "$TASK_DIR/workspace/temps.csv" 'days: 7
min: 3.5
max: 17.2
avg: 10.6' "the task's temps.csv"
printf 'date,temp_c\n2024-01-10,-3.5\n2024-01-11,-1.0\n2024-01-12,-7.4\n2024-01-13,-0.5\n' >"$dir/winter.csv"
compare "$dir/winter.csv" 'days: 4
min: -7.4
max: -0.5
avg: -3.1' "a winter file, all below zero"
printf 'date,temp_c\n2024-03-01,-2.0\n2024-03-02,4.0\n2024-03-03,1.0\n' >"$dir/march.csv"
compare "$dir/march.csv" 'days: 3
min: -2.0
max: 4.0
avg: 1.0' "a file with readings on both sides of zero"
