"""Hidden check of py-add-chunked: listutils.chunked behaves as the goal says."""

import sys
import unittest

sys.path.insert(0, ".")
from listutils import chunked  # noqa: E402


class ChunkedCheck(unittest.TestCase):
    def test_example_from_goal(self):
        self.assertEqual(chunked([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]])

    def test_size_one(self):
        self.assertEqual(chunked([1, 2, 3], 1), [[1], [2], [3]])

    def test_size_larger_than_list(self):
        self.assertEqual(chunked([1, 2, 3], 10), [[1, 2, 3]])

    def test_exact_multiple(self):
        self.assertEqual(chunked(list(range(6)), 3), [[0, 1, 2], [3, 4, 5]])

    def test_empty_list(self):
        self.assertEqual(chunked([], 3), [])

    def test_chunks_are_lists(self):
        for chunk in chunked([1, 2, 3], 2):
            self.assertIs(type(chunk), list)

    def test_does_not_modify_input(self):
        items = [1, 2, 3, 4]
        chunked(items, 3)
        self.assertEqual(items, [1, 2, 3, 4])

    def test_size_below_one(self):
        for size in (0, -1):
            with self.assertRaises(ValueError):
                chunked([1, 2], size)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    sys.exit(0 if result.wasSuccessful() and result.testsRun == 8 else 1)
