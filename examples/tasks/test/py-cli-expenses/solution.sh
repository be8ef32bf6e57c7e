sed -i 's/totals\[category\] = float(row\["amount"\])/totals[category] = totals.get(category, 0) + float(row["amount"])/' expenses.py
