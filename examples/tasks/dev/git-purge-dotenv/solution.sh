git rm -q --cached .env
printf '.env\n' >>.gitignore
git add .gitignore
git commit -q --amend --no-edit
