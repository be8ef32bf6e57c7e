"""Print the quiz night leaderboard from a CSV of team,points rows.

Usage: python3 leaderboard.py scores.csv
"""

import csv
import sys


def load(path):
    """The (team, points) pairs of the CSV file at `path`."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return [(row["team"].strip(), int(row["points"])) for row in reader]


def ranked(scores):
    """(rank, team, points) triples, best first; teams with equal points
    share a rank and are listed alphabetically."""
    ordered = sorted(scores, key=lambda pair: (-pair[1], pair[0]))
    return [(i + 1, team, points) for i, (team, points) in enumerate(ordered)]


def main(argv):
    for rank, team, points in ranked(load(argv[1])):
        print(f"{rank:>2}. {team:<22} {points:>3}")


if __name__ == "__main__":
    main(sys.argv)
