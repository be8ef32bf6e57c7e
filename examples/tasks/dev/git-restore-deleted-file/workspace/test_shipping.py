import unittest

from shipping import cost


class CostTest(unittest.TestCase):
    def test_domestic(self):
        self.assertEqual(cost("domestic", 1), 5.70)

    def test_eu(self):
        self.assertEqual(cost("eu", 2.5), 13.50)

    def test_unknown_zone(self):
        with self.assertRaises(ValueError):
            cost("moon", 1)


if __name__ == "__main__":
    unittest.main()
