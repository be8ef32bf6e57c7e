import unittest

from shop.cart import Cart
from shop.pricing import apply_discount, line_total


class PricingTest(unittest.TestCase):
    def test_line_total(self):
        self.assertEqual(line_total(250, 3), 750)

    def test_apply_discount(self):
        self.assertEqual(apply_discount(1000, 15), 850)
        self.assertEqual(apply_discount(999, 10), 899)


class CartTest(unittest.TestCase):
    def test_total(self):
        cart = Cart()
        cart.add("pen", 120, 3)
        cart.add("pad", 450)
        self.assertEqual(cart.total(), 810)

    def test_discounted_total(self):
        cart = Cart(discount_percent=10)
        cart.add("lamp", 2000)
        self.assertEqual(cart.total(), 1800)


if __name__ == "__main__":
    unittest.main()
