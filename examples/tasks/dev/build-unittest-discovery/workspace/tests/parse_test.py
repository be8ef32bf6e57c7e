import unittest

from tally.parse import words


class WordsTest(unittest.TestCase):
    def test_lower_case(self):
        self.assertEqual(words("The Cat"), ["the", "cat"])

    def test_punctuation_splits(self):
        self.assertEqual(words("one,two;three."), ["one", "two", "three"])

    def test_apostrophe_keeps_the_word(self):
        self.assertEqual(words("don't stop"), ["don't", "stop"])

    def test_digits(self):
        self.assertEqual(words("route 66"), ["route", "66"])

    def test_empty(self):
        self.assertEqual(words("  \n"), [])
