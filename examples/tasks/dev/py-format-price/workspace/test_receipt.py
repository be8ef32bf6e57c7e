import unittest

from receipt import format_price, receipt_line


class ReceiptTest(unittest.TestCase):
    def test_cents(self):
        self.assertEqual(format_price(2.49), "$2.49")

    def test_always_two_decimals(self):
        self.assertEqual(format_price(3.5), "$3.50")
        self.assertEqual(format_price(10), "$10.00")

    def test_line(self):
        self.assertEqual(receipt_line("Tea", 3.5), "Tea: $3.50")


if __name__ == "__main__":
    unittest.main()
