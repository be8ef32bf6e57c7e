"""Print the average of the numbers read from standard input, one a line."""

import sys


def average(numbers):
    return sum(numbers) / len(numbers)


def main():
    numbers = [float(line) for line in sys.stdin if line.strip()]
    print(f"{average(numbers):.2f}")


if __name__ == "__main__":
    main()
