git add parse.py README.md
git commit -q -m 'Handle quoted fields in parse_line'
