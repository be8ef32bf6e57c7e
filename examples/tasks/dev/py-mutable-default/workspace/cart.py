"""A shopping cart."""


class Cart:
    def __init__(self, items=[]):
        self.items = items

    def add(self, name, quantity=1):
        """Add `quantity` of the product `name` to the cart."""
        self.items.extend([name] * quantity)

    def count(self):
        """Return the number of items in the cart."""
        return len(self.items)
