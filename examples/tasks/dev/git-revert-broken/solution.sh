git revert --no-edit HEAD
