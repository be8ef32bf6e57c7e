git switch -q -c csv-export
git add -A
git commit -q -m 'Add CSV export'
git switch -q main
