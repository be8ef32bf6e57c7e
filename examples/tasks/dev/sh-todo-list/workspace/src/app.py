"""Command-line entry point of the notes app."""

import sys

from util.store import load_notes


def main(argv):
    # TODO: add a --help option
    notes = load_notes(argv[1] if len(argv) > 1 else "notes.txt")
    for note in notes:
        print(note)
    # TODO: print a summary line at the end
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
