"""Split the lines of a simple CSV file into fields."""


def parse_line(line):
    """The fields of one line, split on commas."""
    return [field.strip() for field in line.rstrip("\n").split(",")]


def parse(text):
    """The rows of `text`, skipping blank lines."""
    return [parse_line(line) for line in text.splitlines() if line.strip()]
