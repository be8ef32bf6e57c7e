"""Hidden check of data-latency-stats: latency.json maps each path of the
task's pristine requests.jsonl (but /healthz) to its count, rounded mean and
max response time in ms."""

import json
import os
import sys
from fractions import Fraction

per_path = {}
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "requests.jsonl")) as f:
    for line in f:
        if line.strip():
            request = json.loads(line)
            if request["path"] != "/healthz":
                per_path.setdefault(request["path"], []).append(request["ms"])
expected = {}
for path, times in per_path.items():
    mean = Fraction(sum(times), len(times))
    assert mean % 1 != Fraction(1, 2), "rounding tie in the data"
    expected[path] = {"count": len(times), "avg_ms": round(mean), "max_ms": max(times)}

try:
    with open("latency.json") as f:
        actual = json.load(f)
except FileNotFoundError:
    sys.exit("latency.json is missing")
except json.JSONDecodeError as e:
    sys.exit(f"latency.json is not valid JSON: {e}")
if actual != expected:
    sys.exit(f"expected:\n{json.dumps(expected, indent=2, sort_keys=True)}\ngot:\n{json.dumps(actual, indent=2, sort_keys=True)}")
for stats in actual.values():
    for key, value in stats.items():
        if type(value) is not int:
            sys.exit(f"{key} must be an integer, got {value!r}")
