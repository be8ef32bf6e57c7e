"""Reading time estimates."""

import textstats

WORDS_PER_MINUTE = 200


def reading_minutes(text):
    """Return the minutes needed to read text, rounded up."""
    return -(-textstats.word_count(text) // WORDS_PER_MINUTE)
