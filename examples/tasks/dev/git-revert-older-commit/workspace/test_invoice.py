import datetime
import unittest

from invoice import header, render, total


class InvoiceTest(unittest.TestCase):
    def test_header_date(self):
        self.assertEqual(header("7", datetime.date(2024, 5, 3))[-1], "Date: 2024-05-03")

    def test_total(self):
        self.assertEqual(total([("a", 2, 150), ("b", 1, 1000)]), 1300)

    def test_render_ends_with_total(self):
        text = render("7", datetime.date(2024, 5, 3), [("a", 2, 150)])
        self.assertTrue(text.endswith("3.00\n"))


if __name__ == "__main__":
    unittest.main()
