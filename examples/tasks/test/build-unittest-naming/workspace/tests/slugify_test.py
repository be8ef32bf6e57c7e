import unittest

from textutil import slugify


class SlugifyTest(unittest.TestCase):
    def test_words(self):
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_punctuation(self):
        self.assertEqual(slugify("What's new, in 2024?"), "what-s-new-in-2024")

    def test_empty(self):
        self.assertEqual(slugify("  !!  "), "")


if __name__ == "__main__":
    unittest.main()
