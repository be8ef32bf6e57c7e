"""Prints the travel time of every train in a timetable and the longest one.

Usage: python3 journeys.py [TIMETABLE]   (default: timetable.csv)

The timetable is a CSV file with the columns train, from, to, departs and
arrives; times are HH:MM on a 24-hour clock. No journey takes a day or more,
so an arrival time earlier than the departure time means the next day.
"""

import csv
import sys


def minutes(hhmm):
    """Minutes since midnight of a time such as "07:45"."""
    hours, mins = hhmm.split(":")
    return int(hours) * 60 + int(mins)


def duration(departs, arrives):
    """Travel time in minutes from departs to arrives."""
    return minutes(arrives) - minutes(departs)


def fmt(total):
    hours, mins = divmod(total, 60)
    return f"{hours}h{mins:02d}"


def main(argv):
    path = argv[1] if len(argv) > 1 else "timetable.csv"
    with open(path, newline="") as f:
        trains = list(csv.DictReader(f))
    longest = None
    for t in trains:
        d = duration(t["departs"], t["arrives"])
        route = f"{t['from']} -> {t['to']}"
        print(f"{t['train']:<9} {route:<20} {t['departs']}-{t['arrives']}  {fmt(d)}")
        if longest is None or d > longest[0]:
            longest = (d, t["train"], route)
    if longest is not None:
        d, train, route = longest
        print(f"longest: {train} {route} ({fmt(d)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
