git cherry-pick feature/discounts~1
