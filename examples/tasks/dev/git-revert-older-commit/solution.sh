git revert --no-edit HEAD~2
