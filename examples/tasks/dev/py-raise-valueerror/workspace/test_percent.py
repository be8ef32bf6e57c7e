import unittest

from percent import parse_percent


class ParsePercentTest(unittest.TestCase):
    def test_with_and_without_sign(self):
        self.assertEqual(parse_percent("42%"), 42.0)
        self.assertEqual(parse_percent(" 7.5 "), 7.5)

    def test_bounds_are_allowed(self):
        self.assertEqual(parse_percent("0%"), 0.0)
        self.assertEqual(parse_percent("100%"), 100.0)

    def test_not_a_number(self):
        with self.assertRaises(ValueError):
            parse_percent("abc")

    def test_above_100(self):
        with self.assertRaises(ValueError):
            parse_percent("150%")

    def test_negative(self):
        with self.assertRaises(ValueError):
            parse_percent("-5")


if __name__ == "__main__":
    unittest.main()
