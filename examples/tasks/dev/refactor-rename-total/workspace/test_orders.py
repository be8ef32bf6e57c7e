import unittest

from checkout import receipt
from orders import order_total, tax
from report import daily_sales

ITEMS = [("coffee", 350, 2), ("bagel", 275, 1)]


class OrdersTest(unittest.TestCase):
    def test_order_total(self):
        self.assertEqual(order_total(ITEMS), 975)
        self.assertEqual(order_total([]), 0)

    def test_tax(self):
        self.assertEqual(tax(ITEMS), 78)

    def test_receipt(self):
        self.assertEqual(
            receipt(ITEMS),
            ["coffee x2: 7.00", "bagel x1: 2.75", "subtotal: 9.75", "tax: 0.78", "total: 10.53"],
        )

    def test_daily_sales(self):
        self.assertEqual(daily_sales([ITEMS, [("tea", 300, 1)]]), (2, 1275))


if __name__ == "__main__":
    unittest.main()
