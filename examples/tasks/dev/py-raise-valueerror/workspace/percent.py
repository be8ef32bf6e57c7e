"""Parsing percentages typed in by users."""


def parse_percent(text):
    """Parse a percentage such as "42%" or "42" into a number from 0 to 100.

    Raises ValueError if the text is not a number or is outside 0..100.
    """
    value = float(text.strip().rstrip("%"))
    return value
