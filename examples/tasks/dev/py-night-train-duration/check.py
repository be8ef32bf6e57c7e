"""Hidden check of py-night-train-duration: journeys.py prints the right
travel times (arrival before departure = next day) and the longest train, for
the pristine timetable.csv and for a second timetable the check writes."""

import csv
import os
import subprocess
import sys
import tempfile

TASK_DIR = os.environ["TASK_DIR"]


def expected(path):
    out = []
    longest = None
    with open(path, newline="") as f:
        for t in csv.DictReader(f):
            dep = [int(x) for x in t["departs"].split(":")]
            arr = [int(x) for x in t["arrives"].split(":")]
            d = (arr[0] * 60 + arr[1] - dep[0] * 60 - dep[1]) % (24 * 60)
            route = f"{t['from']} -> {t['to']}"
            out.append(f"{t['train']:<9} {route:<20} {t['departs']}-{t['arrives']}  {d // 60}h{d % 60:02d}")
            if longest is None or d > longest[0]:
                longest = (d, f"longest: {t['train']} {route} ({d // 60}h{d % 60:02d})")
    out.append(longest[1])
    return "\n".join(out)


def run(args):
    p = subprocess.run([sys.executable, "journeys.py", *args], capture_output=True, text=True, timeout=30)
    return p.stdout.rstrip("\n") + (f"\n[stderr]\n{p.stderr}" if p.returncode else "")


def compare(label, want, got):
    if want != got:
        sys.exit(f"for {label} expected:\n{want}\ngot:\n{got}")


pristine = os.path.join(TASK_DIR, "workspace", "timetable.csv")
want = expected(pristine)
assert "NJ 40466  Zurich -> Vienna     21:40-07:49  10h09" in want
assert want.endswith("longest: NJ 40470 Zurich -> Berlin (13h13)")
compare("timetable.csv", want, run([]))
compare("the pristine timetable.csv", want, run([pristine]))

with tempfile.TemporaryDirectory() as tmp:
    other = os.path.join(tmp, "winter.csv")
    with open(other, "w") as f:
        f.write(
            "train,from,to,departs,arrives\n"
            "S 12,Chur,Landquart,23:59,00:07\n"
            "ICE 270,Basel,Frankfurt,06:13,09:09\n"
            "NJ 402,Brussels,Prague,12:00,11:51\n"
            "EN 1153,Bucharest,Kyiv,18:45,09:30\n"
            "R 5,Spiez,Frutigen,00:05,00:21\n"
        )
    want = expected(other)
    assert "23h51" in want and "0h08" in want
    compare("a second timetable", want, run([other]))
