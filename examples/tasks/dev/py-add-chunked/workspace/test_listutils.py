import unittest

from listutils import chunked, flatten, unique


class FlattenTest(unittest.TestCase):
    def test_flatten(self):
        self.assertEqual(flatten([[1, 2], [], [3]]), [1, 2, 3])


class UniqueTest(unittest.TestCase):
    def test_unique(self):
        self.assertEqual(unique([3, 1, 3, 2, 1]), [3, 1, 2])


class ChunkedTest(unittest.TestCase):
    def test_uneven(self):
        self.assertEqual(chunked([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]])

    def test_even(self):
        self.assertEqual(chunked(["a", "b", "c", "d"], 2), [["a", "b"], ["c", "d"]])

    def test_bad_size(self):
        with self.assertRaises(ValueError):
            chunked([1, 2], 0)


if __name__ == "__main__":
    unittest.main()
