import os
import unittest

from scores import read_scores, winner

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(HERE, "scores.csv")


class ScoresTest(unittest.TestCase):
    def test_read_scores(self):
        self.assertEqual(
            read_scores(CSV),
            {"amira": 41, "bruno": 37, "chen": 45, "dana": 29},
        )

    def test_winner(self):
        self.assertEqual(winner(CSV), "chen")


if __name__ == "__main__":
    unittest.main()
