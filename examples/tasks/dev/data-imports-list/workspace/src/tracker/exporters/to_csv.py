"""Export entries as CSV (the accountants import csv into their own tool)."""

import csv

from ..models import Entry


def write(db, out):
    writer = csv.writer(out)
    writer.writerow(["project", "start", "end"])
    for row in db.execute("SELECT project, start, end FROM entries ORDER BY start"):
        writer.writerow(row)
