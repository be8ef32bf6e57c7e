"""Word counts of text files."""

from tally.parse import words
from tally.report import format_counts, top

__all__ = ["words", "top", "format_counts"]
