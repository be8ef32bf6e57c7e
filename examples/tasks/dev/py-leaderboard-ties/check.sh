# Hidden check of py-leaderboard-ties: leaderboard.py prints standard
# competition ranks (1, 1, 3, ...) for the task's scores.csv and for another
# table with ties at the top, in the middle and at the bottom. Whitespace
# runs are compared as one space.
set -euo pipefail
other="$(mktemp)"
trap 'rm -f "$other"' EXIT
norm() { sed -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//'; }
compare() {
    local actual
    actual="$(python3 leaderboard.py "$1" | norm)"
    if [ "$actual" != "$2" ]; then
        printf 'for %s expected:\n%s\ngot:\n%s\n' "$3" "$2" "$actual"
        exit 1
    fi
}
compare "$TASK_DIR/workspace/scores.csv" "1. Les Quizerables 42
1. Trivia Newton John 42
3. Agatha Quiztie 38
3. Quiz Team Aguilera 38
3. Quizzly Bears 38
6. The Know-It-Owls 35
7. Universally Challenged 29" "the task's scores.csv"
printf 'team,points\nD,10\nC,12\nB,12\nA,12\nE,7\nF,7\nG,3\nH,10\nI,3\n' >"$other"
compare "$other" "1. A 12
1. B 12
1. C 12
4. D 10
4. H 10
6. E 7
6. F 7
8. G 3
8. I 3" "another table"
