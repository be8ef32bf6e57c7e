import unittest

from teams import group_by_team, roster

PEOPLE = [
    ("ana", "red"),
    ("ben", "blue"),
    ("cai", "red"),
    ("dev", "green"),
    ("eli", "blue"),
]


class TeamsTest(unittest.TestCase):
    def test_group_by_team(self):
        self.assertEqual(
            group_by_team(PEOPLE),
            {"red": ["ana", "cai"], "blue": ["ben", "eli"], "green": ["dev"]},
        )

    def test_empty(self):
        self.assertEqual(group_by_team([]), {})

    def test_roster(self):
        self.assertEqual(
            roster(PEOPLE),
            ["blue: ben, eli", "green: dev", "red: ana, cai"],
        )


if __name__ == "__main__":
    unittest.main()
