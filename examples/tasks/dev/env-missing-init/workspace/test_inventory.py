import unittest

import inventory


class InventoryTest(unittest.TestCase):
    def setUp(self):
        self.items = inventory.load_items("stock.csv")

    def test_load(self):
        self.assertEqual(len(self.items), 5)
        self.assertEqual(self.items[2]["quantity"], 4)

    def test_total_value(self):
        self.assertEqual(inventory.total_value(self.items), 174.3)

    def test_low_stock(self):
        self.assertEqual(inventory.low_stock(self.items), ["B200", "D400"])


if __name__ == "__main__":
    unittest.main()
