"""A small wc: `python3 wc.py FILE` prints its lines, words and characters."""

import sys


def counts(text):
    """Return (lines, words, characters) of text, counted like wc does."""
    lines = text.count("\n")
    words = len(text.split(" "))
    return lines, words, len(text)


def main(argv):
    if len(argv) != 2:
        print("usage: python3 wc.py FILE", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        text = f.read()
    print(*counts(text))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
