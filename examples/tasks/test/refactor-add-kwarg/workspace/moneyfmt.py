"""Formatting amounts of money kept in cents."""


def format_amount(cents):
    """Format an amount in cents: 123450 -> '$1,234.50', -500 -> '-$5.00'."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}${cents // 100:,}.{cents % 100:02d}"
