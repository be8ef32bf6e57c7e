# Hidden check of sh-backup-spaces: a fresh run of backup.sh copies exactly
# the .txt files of notes/ (the task's pristine copy) into backup/.
set -euo pipefail
rm -rf backup
bash backup.sh
notes="$TASK_DIR/workspace/notes"
expected="$(cd "$notes" && LC_ALL=C ls -- *.txt)"
actual="$(cd backup && LC_ALL=C ls)"
if [ "$actual" != "$expected" ]; then
    printf 'expected in backup/:\n%s\ngot:\n%s\n' "$expected" "$actual"
    exit 1
fi
while IFS= read -r name; do
    cmp -- "$notes/$name" "backup/$name"
done <<<"$expected"
