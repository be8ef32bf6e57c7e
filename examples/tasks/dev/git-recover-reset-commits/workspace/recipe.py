"""Scale a recipe to a number of servings.

    python3 recipe.py pancakes.txt 6
"""

import sys


def read_recipe(path):
    """The servings and the (amount, unit, ingredient) lines of a recipe
    file: a `serves N` first line, then `amount unit ingredient` lines."""
    with open(path) as f:
        lines = [line.split(None, 2) for line in f if line.strip()]
    serves = int(lines[0][1])
    return serves, [(float(a), unit, what) for a, unit, what in lines[1:]]


def main(argv):
    serves, items = read_recipe(argv[1])
    for amount, unit, what in items:
        print(f"{amount:g} {unit} {what.strip()}")


if __name__ == "__main__":
    main(sys.argv)
