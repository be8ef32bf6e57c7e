import unittest

from validate import find_errors


class FindErrorsTest(unittest.TestCase):
    def test_valid_rows(self):
        self.assertEqual(find_errors([{"name": "pen", "qty": 2}]), [])
        self.assertEqual(find_errors([]), [])

    def test_every_row_is_checked(self):
        rows = [
            {"name": "pen", "qty": 2},
            {"name": "", "qty": 1},
            {"name": "ink", "qty": 0},
        ]
        self.assertEqual(
            find_errors(rows),
            ["row 2: missing name", "row 3: quantity must be positive"],
        )

    def test_two_problems_in_one_row(self):
        self.assertEqual(
            find_errors([{"qty": -1}]),
            ["row 1: missing name", "row 1: quantity must be positive"],
        )


if __name__ == "__main__":
    unittest.main()
