"""URL slugs for blog posts."""

import re


def slugify(title):
    """Turn a title into a URL slug: its lowercase words joined by hyphens."""
    words = re.findall(r"[A-Za-z0-9]+", title)
    return "-".join(words)
