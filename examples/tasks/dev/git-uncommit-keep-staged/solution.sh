git reset -q --soft HEAD~1
