import unittest

from geometry import distance, perimeter


class GeometryTest(unittest.TestCase):
    def test_distance(self):
        self.assertEqual(distance((0, 0), (3, 4)), 5.0)

    def test_distance_to_itself_is_zero(self):
        self.assertEqual(distance((2, 7), (2, 7)), 0.0)

    def test_perimeter_of_unit_square(self):
        self.assertEqual(perimeter([(0, 0), (1, 0), (1, 1), (0, 1)]), 4.0)


if __name__ == "__main__":
    unittest.main()
