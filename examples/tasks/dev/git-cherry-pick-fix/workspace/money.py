"""Amounts of money: prices are floats in euros, totals are whole cents."""


def to_cents(amount):
    """The amount in whole cents."""
    return int(amount * 100)


def total_cents(prices):
    """The total of `prices` in cents."""
    return sum(to_cents(price) for price in prices)


def format_cents(cents):
    """Cents as euros with two decimals, e.g. 1999 -> '19.99'."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"
