sed -nE 's/^(async )?def ([A-Za-z_][A-Za-z0-9_]*).*/\2/p' textkit.py >functions.txt
