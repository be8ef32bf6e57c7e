"""Orders: lists of (name, unit price in cents, quantity) items."""

TAX_RATE_PERCENT = 8


def calc_total(items):
    """Return the total of the items in cents, before tax."""
    return sum(price * qty for _, price, qty in items)


def tax(items):
    """Return the tax on the items in cents, rounded down."""
    return calc_total(items) * TAX_RATE_PERCENT // 100
