python3 - <<'PY'
import csv
import json

with open("products.csv", newline="") as f:
    products = [
        {
            "sku": row["sku"],
            "name": row["name"],
            "price": float(row["price"]),
            "stock": int(row["stock"]),
            "active": row["active"] == "yes",
        }
        for row in csv.DictReader(f)
    ]
with open("products.json", "w") as out:
    json.dump(products, out, indent=2)
    out.write("\n")
PY
