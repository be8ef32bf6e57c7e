import argparse

from tally import format_counts, top, words

parser = argparse.ArgumentParser(prog="tally")
parser.add_argument("file")
parser.add_argument("--top", type=int, default=10)
args = parser.parse_args()
with open(args.file) as f:
    print(format_counts(top(words(f.read()), args.top)))
