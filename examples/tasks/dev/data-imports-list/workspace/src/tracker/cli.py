"""The `tracker` command line."""

import argparse
import sys
from pathlib import Path

import click  # only for the colours, see colour()
from dateutil import parser as dateparser

from . import store
from .exporters import to_csv


def colour(text, name):
    return click.style(text, fg=name)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tracker")
    ap.add_argument("command", choices=["start", "stop", "export"])
    ap.add_argument("--at", help="when, e.g. 'yesterday 17:30'")
    ap.add_argument("--db", default=str(Path.home() / ".tracker.db"))
    args = ap.parse_args(argv)
    db = store.open_store(args.db)
    if args.command == "export":
        to_csv.write(db, sys.stdout)
    elif args.at:
        print(colour(str(dateparser.parse(args.at)), "green"))
    return 0
