"""Hidden check of js-summit-ranking: summits.js lists the summits by height
as numbers (highest first, equal heights by name) and adds up the heights of
those at or above the threshold, for the pristine summits.csv and for a
second file the check writes, with another threshold."""

import os
import subprocess
import sys
import tempfile

TASK_DIR = os.environ["TASK_DIR"]


def expected(path, min_height):
    with open(path, encoding="utf-8") as f:
        rows = [l.split(",") for l in f.read().split("\n")[1:] if l.strip()]
    summits = sorted(
        ({"name": r[0], "height": int(r[1]), "range": r[2], "climbed": r[3]} for r in rows),
        key=lambda s: (-s["height"], s["name"]),
    )
    out = [
        f"{i:>2}. {s['name']:<18} {s['height']:>5} m  {s['range']} ({s['climbed']})"
        for i, s in enumerate(summits, 1)
    ]
    high = [s["height"] for s in summits if s["height"] >= min_height]
    out.append(f"{len(high)} summits of {min_height} m or more, {sum(high)} m in total")
    return "\n".join(out)


def run(args):
    p = subprocess.run(["node", "summits.js", *args], capture_output=True, text=True, timeout=30)
    return p.stdout.rstrip("\n") + (f"\n[stderr]\n{p.stderr}" if p.returncode else "")


def compare(label, want, got):
    if want != got:
        sys.exit(f"for {label} expected:\n{want}\ngot:\n{got}")


pristine = os.path.join(TASK_DIR, "workspace", "summits.csv")
want = expected(pristine, 3000)
assert want.endswith("3 summits of 3000 m or more, 12571 m in total")
compare("summits.csv", want, run([]))
compare("the pristine summits.csv", want, run([pristine]))

with tempfile.TemporaryDirectory() as tmp:
    other = os.path.join(tmp, "scotland.csv")
    with open(other, "w", encoding="utf-8") as f:
        f.write(
            "name,height_m,range,climbed\n"
            "Ben Lomond,974,Trossachs,2015-05-02\n"
            "Ben Nevis,1345,Lochaber,2016-08-20\n"
            "Schiehallion,1083,Perthshire,2014-09-13\n"
            "Ben Vorlich,985,Trossachs,2019-06-01\n"
            "Carn Gorm,1029,Glen Lyon,2015-10-10\n"
            "Ben Ledi,879,Trossachs,2013-04-07\n"
            "Cairn Gorm,1245,Cairngorms,2020-02-15\n"
            "Beinn Ime,1011,Arrochar Alps,2017-10-08\n"
            "Ben Oss,1029,Crianlarich,2023-03-11\n"
            "Ben More,1174,Crianlarich,2012-06-30\n"
            "Ben Hope,927,Sutherland,2024-07-13\n"
        )
    want = expected(other, 1029)
    assert want.index("Ben Oss") < want.index("Carn Gorm")  # a tie, listed by name
    compare("a second list of summits, with MIN_HEIGHT 1029", want, run([other, "1029"]))
