import unittest

from textutil import truncate, wrap


class WrapTest(unittest.TestCase):
    def test_wrap(self):
        self.assertEqual(wrap("the quick brown fox jumps", width=10), "the quick\nbrown fox\njumps")

    def test_short_text_is_not_wrapped(self):
        self.assertEqual(wrap("short"), "short")


class TruncateTest(unittest.TestCase):
    def test_truncate(self):
        self.assertEqual(truncate("abcdefghij", 8), "abcde...")

    def test_no_cut(self):
        self.assertEqual(truncate("abc", 8), "abc")


if __name__ == "__main__":
    unittest.main()
