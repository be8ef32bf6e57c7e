import unittest
from datetime import date

from people import age, badge, is_adult


class AgeTest(unittest.TestCase):
    def test_day_before_birthday(self):
        self.assertEqual(age(date(1990, 6, 15), date(2024, 6, 14)), 33)

    def test_on_birthday(self):
        self.assertEqual(age(date(1990, 6, 15), date(2024, 6, 15)), 34)

    def test_later_in_the_year(self):
        self.assertEqual(age(date(1990, 6, 15), date(2024, 12, 31)), 34)

    def test_earlier_month(self):
        self.assertEqual(age(date(2000, 11, 3), date(2024, 2, 10)), 23)


class AdultTest(unittest.TestCase):
    def test_not_yet_eighteen(self):
        self.assertFalse(is_adult(date(2006, 9, 1), date(2024, 8, 31)))
        self.assertTrue(is_adult(date(2006, 9, 1), date(2024, 9, 1)))

    def test_badge(self):
        self.assertEqual(badge("Ann", date(2006, 9, 1), date(2024, 5, 1)), "Ann (17, junior)")


if __name__ == "__main__":
    unittest.main()
