"""Stock in the warehouse: lists of dicts with sku, price (cents) and qty."""


def stock_value(items):
    """Return the value of all items in stock, in cents."""
    for item in items:
        total = 0
        total += item["price"] * item["qty"]
    return total


def low_stock(items, threshold=5):
    """Return the skus with fewer than `threshold` units left, in order."""
    return [item["sku"] for item in items if item["qty"] < threshold]
