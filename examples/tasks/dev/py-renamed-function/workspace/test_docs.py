import unittest

from reading import reading_minutes
from report import summary


class DocsTest(unittest.TestCase):
    def test_summary(self):
        self.assertEqual(summary("a.txt", "one two\nthree\n"), "a.txt: 3 words, 2 lines")

    def test_reading_minutes(self):
        self.assertEqual(reading_minutes("word " * 200), 1)
        self.assertEqual(reading_minutes("word " * 201), 2)


if __name__ == "__main__":
    unittest.main()
