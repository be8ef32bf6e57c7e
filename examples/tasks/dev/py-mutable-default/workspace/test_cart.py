import unittest

from cart import Cart


class CartTest(unittest.TestCase):
    def test_add(self):
        cart = Cart()
        cart.add("apple", 2)
        cart.add("pear")
        self.assertEqual(cart.items, ["apple", "apple", "pear"])
        self.assertEqual(cart.count(), 3)

    def test_new_carts_are_empty(self):
        first = Cart()
        first.add("apple")
        second = Cart()
        self.assertEqual(second.items, [])

    def test_start_with_items(self):
        cart = Cart(["milk"])
        cart.add("bread")
        self.assertEqual(cart.items, ["milk", "bread"])


if __name__ == "__main__":
    unittest.main()
