git reset -q --soft HEAD~2
git commit -q -m 'Add --due option to todo add'
