"""Prices in cents."""


def line_total(price, qty):
    """Return the price of `qty` units."""
    return price * qty


def apply_discount(amount, percent):
    """Return amount reduced by `percent` percent, rounded to whole cents."""
    return round(amount * (100 - percent) / 100)
