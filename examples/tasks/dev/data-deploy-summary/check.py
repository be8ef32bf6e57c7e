"""Hidden check of data-deploy-summary: deploys.txt has one `service count
version` line per service with a successful deploy in the task's pristine
deploy.log, services lowercased and sorted, count = successful deploys,
version = that of the latest successful deploy by timestamp (not by line
order, not the highest version)."""

import os
import re
import sys

DEPLOY = re.compile(r"^(\S+) \S+ deploy service=(\S+) version=(\S+) result=(\S+)$")
latest = {}
counts = {}
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "deploy.log")) as f:
    for line in f:
        m = DEPLOY.match(line.strip())
        if not m or m.group(4) != "success":
            continue
        when, service, version = m.group(1), m.group(2).lower(), m.group(3)
        counts[service] = counts.get(service, 0) + 1
        if service not in latest or when > latest[service][0]:
            latest[service] = (when, version)
expected = "".join(f"{s} {counts[s]} {latest[s][1]}\n" for s in sorted(counts))

try:
    actual = open("deploys.txt").read()
except FileNotFoundError:
    sys.exit("deploys.txt is missing")
if actual.rstrip("\n") + "\n" != expected:
    sys.exit(f"expected deploys.txt:\n{expected}got:\n{actual}")
