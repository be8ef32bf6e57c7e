import unittest

from prices import subtotal, total


class PricesTest(unittest.TestCase):
    def test_subtotal(self):
        self.assertEqual(subtotal([(2.5, 2), (1.0, 3)]), 8.0)

    def test_total_with_tax(self):
        self.assertEqual(total([(10.0, 1)]), 12.0)

    def test_total_with_discount(self):
        self.assertEqual(total([(10.0, 2)], discount=0.25), 18.0)

    def test_empty_order(self):
        self.assertEqual(total([]), 0.0)


if __name__ == "__main__":
    unittest.main()
