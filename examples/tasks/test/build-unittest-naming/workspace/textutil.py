"""Small text helpers."""

import re
import textwrap


def slugify(title):
    """Lower-case words of `title` joined by hyphens, other characters dropped."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return "-".join(words)


def wrap(text, width=40):
    """`text` wrapped to `width` columns, as one string."""
    return "\n".join(textwrap.wrap(text, width=width))


def truncate(text, limit):
    """`text` cut to `limit` characters, ending in '...' when cut."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 3, 0)] + "..."
