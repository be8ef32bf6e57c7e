"""Hidden check of py-add-parse-duration: durations.parse_duration as the goal describes."""

import sys
import unittest

sys.path.insert(0, ".")
from durations import parse_duration  # noqa: E402


class ParseCheck(unittest.TestCase):
    def test_examples_from_goal(self):
        self.assertEqual(parse_duration("1h30m"), 5400)
        self.assertEqual(parse_duration("45s"), 45)
        self.assertEqual(parse_duration("2h5s"), 7205)
        self.assertEqual(parse_duration("1h2m3s"), 3723)

    def test_single_units(self):
        self.assertEqual(parse_duration("3h"), 10800)
        self.assertEqual(parse_duration("10m"), 600)
        self.assertEqual(parse_duration("0s"), 0)

    def test_numbers_above_unit_size(self):
        self.assertEqual(parse_duration("90m"), 5400)
        self.assertEqual(parse_duration("150s"), 150)

    def test_returns_int(self):
        self.assertIs(type(parse_duration("1m")), int)

    def test_invalid(self):
        for text in ("", "5x", "1m1h", "30s2m", "10", "h", "1.5h", "1h 30m", "m30"):
            with self.subTest(text=text):
                with self.assertRaises(ValueError):
                    parse_duration(text)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    sys.exit(0 if result.wasSuccessful() and result.testsRun == 5 else 1)
