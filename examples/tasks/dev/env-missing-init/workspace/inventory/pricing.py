"""Value of the stock."""


def total_value(items):
    """The sum of quantity * price."""
    return round(sum(item["quantity"] * item["price"] for item in items), 2)


def low_stock(items, threshold=5):
    """The SKUs with fewer than `threshold` units, sorted."""
    return sorted(item["sku"] for item in items if item["quantity"] < threshold)
