"""Hidden check of py-add-median: tests stats.median in the current directory."""

import sys
import unittest

sys.path.insert(0, ".")
import stats  # noqa: E402


class MedianTest(unittest.TestCase):
    def test_odd_count(self):
        self.assertEqual(stats.median([3, 1, 2]), 2)

    def test_even_count_is_mean_of_middle_two(self):
        self.assertEqual(stats.median([4, 1, 3, 2]), 2.5)

    def test_single_value(self):
        self.assertEqual(stats.median([7]), 7)

    def test_floats_and_negatives(self):
        self.assertEqual(stats.median([-1.5, 10.0, 0.5]), 0.5)

    def test_does_not_modify_the_list(self):
        values = [5, 3, 9, 1]
        stats.median(values)
        self.assertEqual(values, [5, 3, 9, 1])

    def test_empty_raises_value_error(self):
        with self.assertRaises(ValueError):
            stats.median([])

    def test_mean_still_works(self):
        self.assertEqual(stats.mean([1, 2, 3, 4]), 2.5)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=0).result
    sys.exit(0 if result.wasSuccessful() and result.testsRun == 7 else 1)
