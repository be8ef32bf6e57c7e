# Pages are numbered from 1.
sed -i 's/start = number \* size/start = (number - 1) * size/' paging.py
