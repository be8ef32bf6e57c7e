import unittest

from money import format_cents, to_cents, total_cents


class MoneyTest(unittest.TestCase):
    def test_whole_euros(self):
        self.assertEqual(to_cents(3.0), 300)

    def test_total(self):
        self.assertEqual(total_cents([1.0, 2.5]), 350)

    def test_format(self):
        self.assertEqual(format_cents(1999), "19.99")
        self.assertEqual(format_cents(5), "0.05")
        self.assertEqual(format_cents(-250), "-2.50")


if __name__ == "__main__":
    unittest.main()
