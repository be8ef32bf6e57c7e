"""Receipts printed at the checkout."""

from orders import calc_total, tax


def cents(amount):
    return f"{amount // 100}.{amount % 100:02d}"


def receipt(items):
    """Return the lines of a receipt for the items."""
    lines = [f"{name} x{qty}: {cents(price * qty)}" for name, price, qty in items]
    subtotal = calc_total(items)
    lines.append(f"subtotal: {cents(subtotal)}")
    lines.append(f"tax: {cents(tax(items))}")
    lines.append(f"total: {cents(subtotal + tax(items))}")
    return lines
