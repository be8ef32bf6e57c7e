"""Read the stock file."""

import csv


def load_items(path):
    """The rows of a CSV stock file as dicts with typed quantity and price."""
    with open(path, newline="") as f:
        return [
            {"sku": row["sku"], "name": row["name"], "quantity": int(row["quantity"]), "price": float(row["price"])}
            for row in csv.DictReader(f)
        ]
