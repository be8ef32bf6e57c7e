import unittest

from tally.report import format_counts, top


class TopTest(unittest.TestCase):
    def test_most_frequent_first(self):
        self.assertEqual(top(["b", "a", "b", "c", "b", "a"], 2), [("b", 3), ("a", 2)])

    def test_ties_alphabetical(self):
        self.assertEqual(top(["y", "x", "z"], 3), [("x", 1), ("y", 1), ("z", 1)])


class FormatTest(unittest.TestCase):
    def test_counts_aligned(self):
        self.assertEqual(format_counts([("the", 12), ("cat", 3)]), "12 the\n 3 cat")

    def test_nothing(self):
        self.assertEqual(format_counts([]), "")
