git branch csv-export
git reset -q --hard HEAD~1
