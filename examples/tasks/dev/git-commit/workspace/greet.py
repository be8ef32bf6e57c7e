"""Greetings for the command line."""

import sys


def main(argv):
    print("Hi!")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
