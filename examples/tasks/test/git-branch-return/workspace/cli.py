"""Command line for the contacts book."""

import argparse
import json


def load(path):
    with open(path) as f:
        return json.load(f)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="contacts")
    parser.add_argument("book", help="the contacts file (JSON)")
    parser.add_argument("--list", action="store_true", help="print every contact")
    args = parser.parse_args(argv)
    contacts = load(args.book)
    if args.list:
        for contact in contacts:
            print(f"{contact['name']} <{contact['email']}>")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
