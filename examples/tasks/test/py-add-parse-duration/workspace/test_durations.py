import unittest

from durations import format_duration, parse_duration


class FormatTest(unittest.TestCase):
    def test_format(self):
        self.assertEqual(format_duration(5400), "1h30m")
        self.assertEqual(format_duration(3605), "1h5s")
        self.assertEqual(format_duration(0), "0s")


class ParseTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_duration("1h30m"), 5400)
        self.assertEqual(parse_duration("45s"), 45)
        self.assertEqual(parse_duration("1h2m3s"), 3723)

    def test_round_trip(self):
        for seconds in (0, 59, 61, 3600, 86399):
            self.assertEqual(parse_duration(format_duration(seconds)), seconds)

    def test_invalid(self):
        for text in ("", "5x", "h"):
            with self.assertRaises(ValueError):
                parse_duration(text)


if __name__ == "__main__":
    unittest.main()
