# Hidden check of js-workout-streak: streak.js finds the longest run of
# consecutive calendar days in the task's workouts.txt and in two other logs
# (over a new year and a leap day; days of different months that only look
# consecutive by day number).
set -euo pipefail
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
compare() {
    local actual
    actual="$(node streak.js "$1")"
    if [ "$actual" != "$2" ]; then
        printf 'for %s expected:\n%s\ngot:\n%s\n' "$3" "$2" "$actual"
        exit 1
    fi
}
compare "$TASK_DIR/workspace/workouts.txt" 'workouts logged: 20 days
longest streak: 6 days (2024-01-29 to 2024-02-03)' "the task's workouts.txt"
printf '2023-12-30\n2024-01-02\n2023-12-31\n2024-01-01\n2024-01-05\n2024-02-06\n2024-03-07\n2024-04-08\n2024-05-09\n' >"$dir/a.txt"
compare "$dir/a.txt" 'workouts logged: 9 days
longest streak: 4 days (2023-12-30 to 2024-01-02)' "a log over new year"
printf '2023-02-27\n2023-02-28\n2023-03-01\n2023-03-02\n2024-02-25\n2024-02-26\n2024-02-27\n2024-02-28\n2024-03-01\n2024-03-02\n2024-03-03\n2024-06-30\n2024-07-01\n2024-07-02\n2024-07-03\n2024-07-31\n2024-08-01\n2024-08-02\n2024-08-03\n2024-08-04\n' >"$dir/b.txt"
compare "$dir/b.txt" 'workouts logged: 20 days
longest streak: 5 days (2024-07-31 to 2024-08-04)' "a log with leap years"
