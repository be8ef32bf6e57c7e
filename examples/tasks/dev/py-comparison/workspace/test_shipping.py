import unittest

from shipping import shipping_cost


class ShippingTest(unittest.TestCase):
    def test_small_order_pays_shipping(self):
        self.assertEqual(shipping_cost(49.99), 4.99)

    def test_order_of_exactly_50_ships_free(self):
        self.assertEqual(shipping_cost(50.00), 0.0)

    def test_large_order_ships_free(self):
        self.assertEqual(shipping_cost(120.00), 0.0)


if __name__ == "__main__":
    unittest.main()
