git rm -q --cached .env
printf '.env\n' >>.gitignore
git add .gitignore
git commit -q -m 'Stop tracking .env'
