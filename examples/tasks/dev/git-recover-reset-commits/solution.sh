# Fast-forward main to where it was before the reset (the reflog remembers),
# which keeps the uncommitted README.md edit.
git merge -q --ff-only 'main@{1}'
