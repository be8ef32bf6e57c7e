"""Hidden check of py-league-goal-difference: table.py prints the right table
(GD = GF - GA for home and away games, ranked by points, GD, goals scored,
name) for the pristine results.csv and for a second season the check writes."""

import csv
import os
import subprocess
import sys
import tempfile

TASK_DIR = os.environ["TASK_DIR"]
COLUMNS = ["P", "W", "D", "L", "GF", "GA", "GD", "Pts"]


def expected(path):
    table = {}
    with open(path, newline="") as f:
        for m in csv.DictReader(f):
            goals = {m["home"]: int(m["home_goals"]), m["away"]: int(m["away_goals"])}
            for team, other in ((m["home"], m["away"]), (m["away"], m["home"])):
                row = table.setdefault(team, dict.fromkeys(COLUMNS, 0))
                scored, conceded = goals[team], goals[other]
                row["P"] += 1
                row["GF"] += scored
                row["GA"] += conceded
                row["GD"] = row["GF"] - row["GA"]
                if scored > conceded:
                    row["W"] += 1
                    row["Pts"] += 3
                elif scored < conceded:
                    row["L"] += 1
                else:
                    row["D"] += 1
                    row["Pts"] += 1
    order = sorted(table, key=lambda t: (-table[t]["Pts"], -table[t]["GD"], -table[t]["GF"], t))
    lines = [f"{'#':>2}  {'Team':<20}" + "".join(f"{c:>4}" for c in COLUMNS)]
    for pos, team in enumerate(order, 1):
        row = table[team]
        cells = [f"{row[c]:+d}" if c == "GD" else str(row[c]) for c in COLUMNS]
        lines.append(f"{pos:>2}  {team:<20}" + "".join(f"{c:>4}" for c in cells))
    return "\n".join(lines)


def run(args):
    p = subprocess.run([sys.executable, "table.py", *args], capture_output=True, text=True, timeout=30)
    return p.stdout.rstrip("\n") + (f"\n[stderr]\n{p.stderr}" if p.returncode else "")


def compare(label, want, got):
    if [l.rstrip() for l in want.splitlines()] != [l.rstrip() for l in got.splitlines()]:
        sys.exit(f"for {label} expected:\n{want}\ngot:\n{got}")


pristine = os.path.join(TASK_DIR, "workspace", "results.csv")
want = expected(pristine)
assert " 1  Ashby Town             4   4   0   0   7   1  +6  12" in want
compare("results.csv", want, run([]))
compare("the pristine results.csv", want, run([pristine]))

with tempfile.TemporaryDirectory() as tmp:
    other = os.path.join(tmp, "cup.csv")
    with open(other, "w") as f:
        f.write(
            "home,home_goals,away_goals,away\n"
            "Dunmore,0,5,Sefton Wanderers\n"
            "Port Ellis,1,0,Dunmore\n"
            "Sefton Wanderers,0,1,Port Ellis\n"
            "Dunmore,2,2,Abbey Vale\n"
            "Abbey Vale,0,1,Sefton Wanderers\n"
            "Abbey Vale,2,0,Port Ellis\n"
        )
    want = expected(other)
    # Sefton Wanderers and Port Ellis both have 6 points; only the real goal
    # difference (+5 against 0) puts Sefton first.
    assert want.splitlines()[1].startswith(" 1  Sefton Wanderers")
    compare("a second set of results", want, run([other]))
