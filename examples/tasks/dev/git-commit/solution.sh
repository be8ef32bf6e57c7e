git add -A
git commit -q -m 'Add greeting'
