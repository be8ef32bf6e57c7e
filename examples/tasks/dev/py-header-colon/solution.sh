sed -i 's/line.split(":")/line.split(":", 1)/' headers.py
