"""Order totals."""


def subtotal(items):
    """The sum of price * quantity over (price, quantity) pairs."""
    return sum(price * quantity for price, quantity in items)


def total(items, tax_rate=0.2, discount=0.0):
    """The subtotal less the discount (a fraction), plus tax."""
    amount = subtotal(items) * (1 - discount)
    return round(amount * (1 + tax_rate), 2)
