"""A shopping cart."""

from .prices import apply_discount, line_total


class Cart:
    def __init__(self, discount_percent=0):
        self.lines = []
        self.discount_percent = discount_percent

    def add(self, name, price, qty=1):
        self.lines.append((name, price, qty))

    def total(self):
        subtotal = sum(line_total(price, qty) for _, price, qty in self.lines)
        return apply_discount(subtotal, self.discount_percent)
