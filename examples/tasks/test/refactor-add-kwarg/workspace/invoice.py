"""Plain-text invoices."""

from moneyfmt import format_amount


def invoice_lines(items):
    """items: (description, cents) pairs. Return the invoice's lines."""
    width = max([len(desc) for desc, _ in items] + [5])
    lines = [f"{desc:<{width}}  {format_amount(cents):>12}" for desc, cents in items]
    total = sum(cents for _, cents in items)
    lines.append(f"{'Total':<{width}}  {format_amount(total):>12}")
    return lines
