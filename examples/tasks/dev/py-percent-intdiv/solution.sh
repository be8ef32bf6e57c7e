sed -i 's|done // total \* 100|done / total * 100|' progress.py
