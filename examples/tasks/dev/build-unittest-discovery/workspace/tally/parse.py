"""Splitting text into words."""

import re

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def words(text):
    """The words of `text`, lower-cased; an apostrophe inside a word keeps it whole."""
    return WORD.findall(text.lower())
