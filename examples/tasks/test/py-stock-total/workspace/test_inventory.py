import unittest

from inventory import low_stock, stock_value

ITEMS = [
    {"sku": "A-100", "price": 250, "qty": 10},
    {"sku": "B-200", "price": 1200, "qty": 2},
    {"sku": "C-300", "price": 75, "qty": 40},
]


class InventoryTest(unittest.TestCase):
    def test_stock_value(self):
        self.assertEqual(stock_value(ITEMS), 2500 + 2400 + 3000)

    def test_single_item(self):
        self.assertEqual(stock_value(ITEMS[:1]), 2500)

    def test_empty(self):
        self.assertEqual(stock_value([]), 0)

    def test_low_stock(self):
        self.assertEqual(low_stock(ITEMS), ["B-200"])


if __name__ == "__main__":
    unittest.main()
