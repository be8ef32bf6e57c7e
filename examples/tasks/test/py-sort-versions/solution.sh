sed -i 's/key=lambda v: v.split(".")/key=lambda v: [int(part) for part in v.split(".")]/' versions.py
