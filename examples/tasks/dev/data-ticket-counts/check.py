"""Hidden check of data-ticket-counts: open_by_assignee.txt counts the open
(`open`/`reopened`, any case) tickets of the task's pristine tickets.tsv per
lowercased, trimmed assignee, each ticket id once, skipping unassigned
tickets and lines without exactly 4 fields, as `name: count`, most first,
ties alphabetical."""

import os
import sys
from collections import Counter

seen = set()
counts = Counter()
with open(os.path.join(os.environ["TASK_DIR"], "workspace", "tickets.tsv")) as f:
    next(f)  # the header
    for line in f:
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 4:
            continue
        ticket, status, assignee, _ = fields
        assignee = assignee.strip().lower()
        if ticket in seen or not assignee or status.strip().lower() not in ("open", "reopened"):
            continue
        seen.add(ticket)
        counts[assignee] += 1
ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
expected = "".join(f"{name}: {n}\n" for name, n in ranked)

try:
    actual = open("open_by_assignee.txt").read()
except FileNotFoundError:
    sys.exit("open_by_assignee.txt is missing")
if actual.replace("\r\n", "\n").rstrip("\n") + "\n" != expected:
    sys.exit(f"expected:\n{expected}got:\n{actual}")
