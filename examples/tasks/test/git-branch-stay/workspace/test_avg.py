import unittest

from avg import average


class AverageTest(unittest.TestCase):
    def test_average(self):
        self.assertEqual(average([1.0, 2.0, 6.0]), 3.0)


if __name__ == "__main__":
    unittest.main()
