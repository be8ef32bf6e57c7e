import unittest

from textutils import count_words, initials, shorten


class TextUtilsTest(unittest.TestCase):
    def test_shorten_keeps_short_text(self):
        self.assertEqual(shorten("hello", 10), "hello")

    def test_shorten_cuts_long_text(self):
        self.assertEqual(shorten("hello wonderful world", 10), "hello w...")

    def test_initials(self):
        self.assertEqual(initials("ada lovelace"), "AL")
        self.assertEqual(initials("Grace  Brewster Hopper"), "GBH")

    def test_count_words(self):
        self.assertEqual(count_words("one two  three\n"), 3)


if __name__ == "__main__":
    unittest.main()
