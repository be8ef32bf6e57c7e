"""Small helpers for showing text in narrow places."""


def shorten(text, width):
    """Cut text to at most `width` characters, ending with '...' if cut."""
    if len(text) <= width:
        return text
    return text[: max(width - 3, 0)] + "..."


def initials(name):
    """Return the upper-case initials of a name: 'ada lovelace' -> 'AL'."""
    return "".join(part[0].upper() for part in name.split())


def count_words(text):
    return len(text.split())
