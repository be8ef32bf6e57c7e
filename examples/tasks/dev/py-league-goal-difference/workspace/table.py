"""Prints the league table for the match results in results.csv.

Usage: python3 table.py [RESULTS]   (default: results.csv)

Each row of RESULTS is one match: home, home_goals, away_goals, away.
A win is worth 3 points and a draw 1. Teams are ranked by points, then by
goal difference (goals scored minus goals conceded), then by goals scored,
then by name.
"""

import csv
import sys

COLUMNS = ["P", "W", "D", "L", "GF", "GA", "GD", "Pts"]


def build_table(matches):
    table = {}
    for m in matches:
        home, away = m["home"], m["away"]
        hg, ag = int(m["home_goals"]), int(m["away_goals"])
        h = table.setdefault(home, dict.fromkeys(COLUMNS, 0))
        a = table.setdefault(away, dict.fromkeys(COLUMNS, 0))
        h["P"] += 1
        a["P"] += 1
        h["GF"] += hg
        h["GA"] += ag
        a["GF"] += ag
        a["GA"] += hg
        h["GD"] += hg - ag
        a["GD"] += hg - ag
        if hg > ag:
            h["W"] += 1
            a["L"] += 1
            h["Pts"] += 3
        elif hg < ag:
            a["W"] += 1
            h["L"] += 1
            a["Pts"] += 3
        else:
            h["D"] += 1
            a["D"] += 1
            h["Pts"] += 1
            a["Pts"] += 1
    return table


def ranked(table):
    return sorted(table.items(), key=lambda kv: (-kv[1]["Pts"], -kv[1]["GD"], -kv[1]["GF"], kv[0]))


def main(argv):
    path = argv[1] if len(argv) > 1 else "results.csv"
    with open(path, newline="") as f:
        table = build_table(csv.DictReader(f))
    print(f"{'#':>2}  {'Team':<20}" + "".join(f"{c:>4}" for c in COLUMNS))
    for pos, (team, row) in enumerate(ranked(table), 1):
        gd = f"{row['GD']:+d}"
        cells = [str(row[c]) if c != "GD" else gd for c in COLUMNS]
        print(f"{pos:>2}  {team:<20}" + "".join(f"{c:>4}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
